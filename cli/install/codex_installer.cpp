// Codex: project scope merges <project>/.codex/hooks.json (Codex reads it only in a trusted project), --global
// merges $CODEX_HOME/hooks.json. Codex skips untrusted hooks silently: the person trusts them in /hooks; we never
// write trust ourselves. The messaging MCP server goes into the same scope's config.toml (<project>/.codex/config.toml,
// read by Codex 0.171.0 only in a trusted project, or $CODEX_HOME/config.toml), in a block we own
// (codex_mcp_config.hpp); --allow-tools adds approval_mode = "approve" for exactly the messaging and function tools. The
// Codex plugin (a local marketplace) is materialized too, for `codex plugin add`.
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "agentworks/paths.hpp"
#include "agentworks/providers.hpp"
#include "install/codex_mcp_config.hpp"
#include "install/file_io.hpp"
#include "install/installer.hpp"
#include "install/materialize.hpp"

namespace agentworks::cli::install {
namespace fs = std::filesystem;
using nlohmann::json;
namespace {

fs::path codex_home() {
  const char* env = std::getenv(provider_info(Provider::codex).home_variable);
  if (env != nullptr && *env != '\0') return fs::absolute(env);
  return paths::home_dir() / ".codex";
}

class CodexInstaller final : public Installer {
 public:
  explicit CodexInstaller(InstallOptions options) : options_(std::move(options)) {}

  std::string display_name() const override { return std::string(provider_info(Provider::codex).display_name); }
  std::string destination() const override { return target().string(); }
  std::string also_changes(bool uninstall) const override {
    if (uninstall) return " and the agentworks MCP server from " + mcp_config().string();
    return " and the agentworks MCP server (the messaging tools) into " + mcp_config().string() +
           (options_.allow_tools ? ", allowing its messaging and function tools to run without asking (approval_mode = "
                                   "\"approve\")"
                                 : "");
  }
  // A config.toml that defines our server itself is refused before anything is written.
  void check_ready(bool uninstall) const override {
    if (!uninstall) with_codex_mcp_block(read_text_file(mcp_config()), "");
  }

  json install() override {
    const std::string hook = hook_command_for(options_.hook);
    json files = json::array({merge_into_hooks_file("codex/hooks/hooks.json", target(), hook)});
    files.push_back(merge_codex_mcp_config(mcp_config(), agentworks_cli_path(), options_.allow_tools));
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
    steps.push_back("Codex starts the agentworks MCP server (agent_message_ack, _reply, _send, _read, _peers) from " +
                    mcp_config().string() + (options_.global ? "" : " (again: only in a trusted project)") +
                    "; `codex mcp list` in the project shows it. Start a new Codex session to load it.");
    steps.push_back(options_.allow_tools
                        ? "The messaging and function tools run without asking (approval_mode = \"approve\"); remove "
                          "--allow-tools and install again to be asked per tool."
                        : "Codex asks the person before each messaging tool call (approve it in the TUI); with "
                          "approval_policy = \"never\" every call fails with \"MCP tool call requires approval\". To "
                          "let the messaging and function tools run without asking: `agentworks attach codex --allow-tools`.");
    steps.push_back("Then type `agentworks attach NAME \"PURPOSE\"` in the chat, without the slash (the Codex TUI "
                    "rejects unknown slash commands).");
    return {{"files", files},
            {"commands", json::array()},
            {"next_steps", steps},
            {"hooks_file", target().string()},
            {"mcp_config", mcp_config().string()},
            {"tools_allowed", options_.allow_tools},
            {"plugin_marketplace", marketplace.string()}};
  }

  json uninstall() override {
    json files = json::array({remove_from_hooks_file(target(), hook_command_for(options_.hook)),
                              remove_codex_mcp_config(mcp_config())});
    return {{"files", files},
            {"commands", json::array()},
            {"next_steps", json::array({"Restart Codex sessions so they stop running the agentworks hooks and MCP "
                                        "server."})},
            {"hooks_file", target().string()},
            {"mcp_config", mcp_config().string()}};
  }

 private:
  fs::path mcp_config() const {
    return options_.global ? codex_home() / "config.toml" : options_.project / ".codex" / "config.toml";
  }
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
