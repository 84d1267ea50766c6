// Codex: project scope merges <project>/.codex/hooks.json (Codex reads it only in a trusted project), --global
// merges $CODEX_HOME/hooks.json. Codex skips untrusted hooks silently: the person trusts them in /hooks; we never
// write trust ourselves. The Codex plugin (a local marketplace) is materialized too, for `codex plugin add`.
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "agentworks/paths.hpp"
#include "install/installer.hpp"
#include "install/materialize.hpp"

namespace agentworks::cli::install {
namespace fs = std::filesystem;
using nlohmann::json;
namespace {

fs::path codex_home() {
  if (const char* env = std::getenv("CODEX_HOME"); env != nullptr && *env != '\0') return fs::absolute(env);
  return paths::home_dir() / ".codex";
}

class CodexInstaller final : public Installer {
 public:
  explicit CodexInstaller(InstallOptions options) : options_(std::move(options)) {}

  std::string display_name() const override { return "Codex"; }
  std::string destination() const override { return target().string(); }
  void check_ready(bool /*uninstall*/) const override {}

  json install() override {
    const std::string hook = hook_command_for(options_.hook);
    json files = json::array({merge_into_hooks_file("codex/hooks/hooks.json", target(), hook)});
    const fs::path marketplace = paths::data_dir() / "codex-marketplace";
    for (auto& f : materialize({".agents/", "codex/"}, marketplace, hook)) files.push_back(f);
    json steps = json::array();
    steps.push_back("Make sure the agentworks bridge runs: `agentworks daemon start` (or `agentworks up`).");
    if (!options_.global) {
      steps.push_back("Codex reads " + target().string() + " only in a trusted project: trust " +
                      options_.project.string() + " when Codex asks.");
    }
    steps.push_back("Open Codex, type /hooks and trust the agentworks hooks (Codex skips untrusted hooks "
                    "silently; trust again after the hooks change).");
    steps.push_back("Then type `agentworks attach NAME \"PURPOSE\"` in the chat, without the slash (the Codex TUI "
                    "rejects unknown slash commands).");
    return {{"files", files},
            {"commands", json::array()},
            {"next_steps", steps},
            {"hooks_file", target().string()},
            {"plugin_marketplace", marketplace.string()}};
  }

  json uninstall() override {
    json files = json::array({remove_from_hooks_file(target(), hook_command_for(options_.hook))});
    return {{"files", files},
            {"commands", json::array()},
            {"next_steps", json::array({"Restart Codex sessions so they stop running the agentworks hooks."})},
            {"hooks_file", target().string()}};
  }

 private:
  fs::path target() const {
    return options_.global ? codex_home() / "hooks.json" : options_.project / ".codex" / "hooks.json";
  }
  InstallOptions options_;
};

}  // namespace

std::unique_ptr<Installer> make_codex_installer(const InstallOptions& options) {
  return std::make_unique<CodexInstaller>(options);
}

}  // namespace agentworks::cli::install
