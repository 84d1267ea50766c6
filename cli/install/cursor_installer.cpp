// Cursor: merges our stop / beforeSubmitPrompt entries into <project>/.cursor/hooks.json, or ~/.cursor/hooks.json
// with --global, keeping every other hook in the file.
#include <nlohmann/json.hpp>

#include "agentworks/paths.hpp"
#include "agentworks/providers.hpp"
#include "install/installer.hpp"
#include "install/materialize.hpp"

namespace agentworks::cli::install {
namespace fs = std::filesystem;
using nlohmann::json;
namespace {

class CursorInstaller final : public Installer {
 public:
  explicit CursorInstaller(InstallOptions options) : options_(std::move(options)) {}

  std::string display_name() const override { return std::string(provider_info(Provider::cursor).display_name); }
  std::string destination() const override { return target().string(); }
  void check_ready(bool /*uninstall*/) const override {}

  json install() override {
    json files = json::array({merge_into_hooks_file("cursor/hooks.json", target(), hook_command_for(options_.hook))});
    json steps = json::array(
        {"Make sure the agentworks bridge runs: `agentworks daemon start` (or `agentworks up`).",
         "Reopen the project in Cursor so it reads " + target().string() + ".",
         "Then type `/agentworks attach NAME \"PURPOSE\"` in a Cursor chat."});
    return {{"files", files}, {"commands", json::array()}, {"next_steps", steps}, {"hooks_file", target().string()}};
  }

  json uninstall() override {
    json files = json::array({remove_from_hooks_file(target(), hook_command_for(options_.hook))});
    return {{"files", files},
            {"commands", json::array()},
            {"next_steps", json::array({"Reopen the project in Cursor so it stops running the agentworks hooks."})},
            {"hooks_file", target().string()}};
  }

 private:
  fs::path target() const {
    return options_.global ? paths::home_dir() / ".cursor" / "hooks.json" : options_.project / ".cursor" / "hooks.json";
  }
  InstallOptions options_;
};

}  // namespace

std::unique_ptr<Installer> make_cursor_installer(const InstallOptions& options) {
  return std::make_unique<CursorInstaller>(options);
}

}  // namespace agentworks::cli::install
