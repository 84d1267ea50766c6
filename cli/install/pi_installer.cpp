// Pi: writes the agentworks extension (plugins/pi/agentworks.ts, the paths of agentworks-hook and agentworks
// filled in) to <project>/.pi/extensions/agentworks.ts, or with --global to the user's Pi agent directory
// ($PI_CODING_AGENT_DIR, default ~/.pi/agent)/extensions/agentworks.ts. Pi loads it at its next start (or
// /reload); it attaches nothing until the person types `/agentworks attach` in a Pi session.
#include <cstdlib>
#include <string>
#include <system_error>

#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "agentworks/paths.hpp"
#include "agentworks/providers.hpp"
#include "install/embedded_plugins.hpp"
#include "install/file_io.hpp"
#include "install/installer.hpp"
#include "install/materialize.hpp"

namespace agentworks::cli::install {
namespace fs = std::filesystem;
using nlohmann::json;
namespace {

constexpr std::string_view kTemplate = "pi/agentworks.ts";
// The extension's first line: only a file that starts with it is ours to replace or remove.
constexpr std::string_view kMarker = "// agentworks extension for Pi";

// A path as the inside of a TypeScript string literal (JSON string escaping is valid there).
std::string string_literal_body(const std::string& path) {
  const std::string quoted = json(path).dump();
  return quoted.substr(1, quoted.size() - 2);
}

void replace_all(std::string& text, std::string_view from, const std::string& to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
}

class PiInstaller final : public Installer {
 public:
  explicit PiInstaller(InstallOptions options) : options_(std::move(options)) {}

  std::string display_name() const override { return std::string(provider_info(Provider::pi).display_name); }
  std::string destination() const override { return target().string(); }

  void check_ready(bool uninstall) const override {
    const std::string existing = read_text_file(target());
    if (!existing.empty() && existing.rfind(kMarker, 0) != 0) {
      throw Error(ErrorCode::conflict, target().string() + " exists and is not the agentworks extension; move it "
                                       "away and run `agentworks attach pi" + std::string(uninstall ? " --uninstall" : "") +
                                       (options_.global ? " --global" : "") + "` again");
    }
    if (!uninstall && options_.hook.empty()) {
      throw Error(ErrorCode::not_found, "agentworks-hook was not found next to agentworks; reinstall agentworks");
    }
  }

  json install() override {
    std::string content(embedded_plugin_file(kTemplate));
    replace_all(content, kHookPlaceholder, string_literal_body(options_.hook.string()));
    replace_all(content, kCliPlaceholder, string_literal_body(agentworks_cli_path()));
    const bool changed = write_file_atomic(target(), content);
    json steps = json::array(
        {"Make sure the agentworks bridge runs: `agentworks daemon start` (or `agentworks up`).",
         "Start Pi in " + std::string(options_.global ? "any project" : options_.project.string()) +
             " (or type /reload in a running Pi) so it loads " + target().string() + ".",
         "Then type `/agentworks attach NAME \"PURPOSE\"` in that Pi session."});
    return {{"files", json::array({{{"path", target().string()}, {"changed", changed}}})},
            {"commands", json::array()},
            {"next_steps", steps},
            {"extension_file", target().string()}};
  }

  json uninstall() override {
    std::error_code ec;
    const bool removed = fs::remove(target(), ec);
    if (ec) throw Error(ErrorCode::internal, "cannot remove " + target().string() + ": " + ec.message());
    return {{"files", json::array({{{"path", target().string()}, {"changed", removed}}})},
            {"commands", json::array()},
            {"next_steps", json::array({"Type /reload in a running Pi (or restart it) so it drops the extension."})},
            {"extension_file", target().string()}};
  }

 private:
  fs::path target() const {
    if (!options_.global) return options_.project / ".pi" / "extensions" / "agentworks.ts";
    const char* dir = std::getenv(provider_info(Provider::pi).home_variable);
    const fs::path agent = dir != nullptr && *dir != '\0' ? fs::absolute(dir) : paths::home_dir() / ".pi" / "agent";
    return agent / "extensions" / "agentworks.ts";
  }
  InstallOptions options_;
};

}  // namespace

std::unique_ptr<Installer> make_pi_installer(const InstallOptions& options) {
  return std::make_unique<PiInstaller>(options);
}

}  // namespace agentworks::cli::install
