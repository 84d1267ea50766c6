#include "install/installer.hpp"

#include "agentworks/error.hpp"

namespace agentworks::cli::install {

std::unique_ptr<Installer> make_installer(const std::string& provider, const InstallOptions& options) {
  if (provider == "claude") return make_claude_installer(options);
  if (provider == "codex") return make_codex_installer(options);
  if (provider == "cursor") return make_cursor_installer(options);
  throw Error(ErrorCode::usage, "unknown provider \"" + provider + "\"; use claude, codex or cursor");
}

}  // namespace agentworks::cli::install
