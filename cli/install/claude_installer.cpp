// Claude Code: the plugin is installed the way a person installs it, with Claude Code's own commands, so Claude
// Code keeps its own state consistent (checked against Claude Code 2.1.332, offline):
//   claude plugin marketplace add DIR --scope user   -> ~/.claude/settings.json "extraKnownMarketplaces"
//   claude plugin install agentworks@agentworks --scope project -> .claude/settings.json "enabledPlugins",
//                                                                   ~/.claude/plugins/ state
// DIR is a local marketplace we materialize under $XDG_DATA_HOME/agentworks/claude-marketplace (hook path filled
// in). The marketplace is always declared in the person's own settings: declared in the project it would put
// that absolute path into home in .claude/settings.json, a file people commit, where it names nothing on any
// other clone. The project file then holds only `"enabledPlugins": {"agentworks@agentworks": true}`. Without
// `claude` on PATH we fail and print the commands to run by hand: no silent fallback that writes Claude Code's
// settings behind its back.
// The one edit we make ourselves is the person-confirmed --allow-tools (claude_permissions.hpp); uninstall
// removes it.
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>

#include "agentworks/environment.hpp"
#include "agentworks/providers.hpp"
#include "agentworks/error.hpp"
#include "agentworks/paths.hpp"
#include "install/claude_permissions.hpp"
#include "install/installer.hpp"
#include "install/materialize.hpp"
#include "install/run_program.hpp"

namespace agentworks::cli::install {
namespace fs = std::filesystem;
using nlohmann::json;
namespace {

constexpr const char* kPluginId = "agentworks@agentworks";
constexpr const char* kMarketplace = "agentworks";

// $AGENTWORKS_CLAUDE_BIN (tests, unusual installs), else `claude` on PATH.
std::optional<fs::path> claude_binary() {
  if (const char* given = env::get(env::Var::claude_bin); given != nullptr) {
    return fs::absolute(given);
  }
  return find_on_path(std::string(provider_info(Provider::claude).executable));
}

// What Claude Code says when there is nothing to remove in that scope ("... is not declared in project settings").
bool says_not_found(const std::string& output) {
  return output.find("not found") != std::string::npos || output.find("not declared") != std::string::npos ||
         output.find("not installed") != std::string::npos;
}

class ClaudeInstaller final : public Installer {
 public:
  explicit ClaudeInstaller(InstallOptions options) : options_(std::move(options)) {}

  std::string display_name() const override { return std::string(provider_info(Provider::claude).display_name); }
  std::string destination() const override {
    return options_.global ? (paths::home_dir() / ".claude").string() + " (user settings)"
                           : (options_.project / ".claude").string();
  }
  std::string also_changes(bool uninstall) const override {
    if (uninstall) return " (and the agentworks tool allow rules from " + settings_file().string() + ")";
    return options_.allow_tools ? ", and allow its messaging and function tools to run without asking in " +
                                      settings_file().string()
                                : "";
  }
  void check_ready(bool /*uninstall*/) const override {}

  json install() override {
    const fs::path marketplace = paths::data_dir() / "claude-marketplace";
    json files = materialize({".claude-plugin/", "claude/"}, marketplace, hook_command_for(options_.hook));
    const std::vector<std::vector<std::string>> steps = {
        {"plugin", "marketplace", "add", marketplace.string(), "--scope", "user"},
        {"plugin", "install", kPluginId, "--scope", scope()}};
    json commands = run_all(steps, /*tolerate_not_found=*/false);
    if (options_.allow_tools) files.push_back(add_claude_allow_rules(settings_file()));
    json next = json::array(
        {"Make sure the agentworks bridge runs: `agentworks daemon start` (or `agentworks up`).",
         "Start a new Claude Code session" + where_suffix() + " (or run /reload-plugins in an open one).",
         "Then type `/agentworks attach NAME \"PURPOSE\"` in the chat (or `/agentworks attach` for a proposal)."});
    next.push_back(options_.allow_tools
                       ? "The messaging and function tools (mcp__plugin_agentworks_agentworks__*) run without "
                         "asking: allowed in " + settings_file().string() +
                             (options_.global ? "." : " (Claude Code applies it once you trust the folder).")
                       : "Claude Code asks before each messaging tool call (\"No\" is preselected). To let the "
                         "messaging tools run without asking: `agentworks attach claude --allow-tools`.");
    json result = {{"files", files},
                   {"commands", commands},
                   {"next_steps", next},
                   {"plugin_marketplace", marketplace.string()},
                   {"plugin", kPluginId},
                   {"tools_allowed", options_.allow_tools}};
    if (!options_.global) result["settings_file"] = (options_.project / ".claude" / "settings.json").string();
    return result;
  }

  json uninstall() override {
    // A project uninstall keeps the person's marketplace (other projects may enable the plugin from it) and
    // removes a project declaration an older agentworks wrote; Claude Code refuses that when there is none.
    const std::vector<std::vector<std::string>> steps = {
        {"plugin", "uninstall", kPluginId, "--scope", scope()},
        {"plugin", "marketplace", "remove", kMarketplace, "--scope", scope()}};
    json commands = run_all(steps, /*tolerate_not_found=*/true);
    return {{"files", json::array({remove_claude_allow_rules(settings_file())})},
            {"commands", commands},
            {"next_steps", json::array({"Restart Claude Code sessions" + where_suffix() +
                                        " (or run /reload-plugins) so they stop running the agentworks hooks."})},
            {"plugin", kPluginId}};
  }

 private:
  fs::path settings_file() const {
    return (options_.global ? paths::home_dir() : options_.project) / ".claude" / "settings.json";
  }
  std::string scope() const { return options_.global ? "user" : "project"; }
  std::string where_suffix() const { return options_.global ? "" : " in " + options_.project.string(); }

  // Runs `claude ARGS…` for each step in the project directory; the first failure stops with its output.
  json run_all(const std::vector<std::vector<std::string>>& steps, bool tolerate_not_found) const {
    const auto claude = claude_binary();
    if (!claude) {
      std::string by_hand = options_.global ? "" : "cd " + command_line({options_.project.string()}) + " && ";
      for (size_t i = 0; i < steps.size(); ++i) {
        std::vector<std::string> argv = {std::string(provider_info(Provider::claude).executable)};
        argv.insert(argv.end(), steps[i].begin(), steps[i].end());
        by_hand += (i == 0 ? "" : " && ") + command_line(argv);
      }
      throw Error(ErrorCode::not_found,
                  "Claude Code (`claude`) is not on PATH, and agentworks installs its plugin only through Claude "
                  "Code's own commands; install Claude Code or put it on PATH (or set AGENTWORKS_CLAUDE_BIN), or "
                  "run by hand: " + by_hand);
    }
    json done = json::array();
    for (const auto& step : steps) {
      std::vector<std::string> argv = {claude->string()};
      argv.insert(argv.end(), step.begin(), step.end());
      const ProgramResult r = run_program(argv, options_.project);
      done.push_back({{"command", command_line(argv)}, {"exit_code", r.exit_code}});
      if (r.exit_code == 0 || (tolerate_not_found && says_not_found(r.output))) continue;
      throw Error(ErrorCode::internal, "`" + command_line(argv) + "` failed" +
                                           (r.timed_out ? " (timed out)" : " (exit " + std::to_string(r.exit_code) + ")") +
                                           ": " + r.output + " — fix that and run `agentworks attach claude` again");
    }
    return done;
  }

  InstallOptions options_;
};

}  // namespace

std::unique_ptr<Installer> make_claude_installer(const InstallOptions& options) {
  return std::make_unique<ClaudeInstaller>(options);
}

}  // namespace agentworks::cli::install
