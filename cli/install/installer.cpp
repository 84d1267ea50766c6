#include "install/installer.hpp"

#include "agentworks/error.hpp"
#include "agentworks/providers.hpp"

namespace agentworks::cli::install {

std::unique_ptr<Installer> make_installer(const std::string& provider, const InstallOptions& options) {
  if (const auto known = provider_from_name(provider)) {
    switch (*known) {
      case Provider::claude: return make_claude_installer(options);
      case Provider::codex: return make_codex_installer(options);
      case Provider::cursor: return make_cursor_installer(options);
      case Provider::pi: return make_pi_installer(options);
    }
  }
  throw Error(ErrorCode::usage, "unknown provider \"" + provider + "\"; use claude, codex, cursor or pi");
}

}  // namespace agentworks::cli::install
