// agentworks attach claude|codex|cursor|pi: installs the provider's agentworks hooks/plugin into the current project
// (or, with --global, the person's user settings) after the person confirms on the terminal (R-H10). It attaches
// no chat: the person does that inside the chat with `/agentworks attach …`. --uninstall removes exactly ours.
#include <iostream>
#include <nlohmann/json.hpp>
#include <system_error>

#include "agentworks/error.hpp"
#include "agentworks/providers.hpp"
#include "checks.hpp"
#include "command.hpp"
#include "install/confirm.hpp"
#include "install/hook_binary.hpp"
#include "install/installer.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace fs = std::filesystem;
namespace {

class Attach final : public Command {
 public:
  void define(Options& options) override {
    options.option("provider", provider_, "claude, codex, cursor or pi");
    options.flag("--global", global_, "Install for the person's user settings instead of the current project");
    options.flag("--yes,-y", yes_, "Confirm without the terminal question (you, the person, are confirming)");
    options.option("--project", project_, "The project directory (default: the current directory)");
    options.flag("--allow-tools", allow_tools_,
                 "Also let the five messaging MCP tools run without the CLI asking each time (Claude Code, Codex)");
    options.flag("--uninstall", uninstall_, "Remove the agentworks hooks/plugin of PROVIDER (and nothing else)");
  }

  json run(const Context& /*ctx*/) override {
    if (provider_.empty()) {
      throw Error(ErrorCode::usage, "name the provider: `agentworks attach claude|codex|cursor|pi` (add --uninstall "
                                    "to remove it); to attach a chat, type `/agentworks attach` inside the chat");
    }
    if (allow_tools_ && (is_provider(provider_, Provider::cursor) || is_provider(provider_, Provider::pi))) {
      throw Error(ErrorCode::usage, "--allow-tools is for claude and codex (Cursor has no agentworks tools; Pi runs "
                                    "extension tools without asking); run it without --allow-tools (nothing was "
                                    "changed)");
    }
    install::InstallOptions options;
    options.global = global_;
    options.allow_tools = allow_tools_ && !uninstall_;
    options.project = project_directory(project_);
    if (uninstall_) {
      try {
        options.hook = install::find_hook_binary();
      } catch (const Error&) {
        // Our entries are still recognized by the agentworks-hook name.
      }
    } else {
      options.hook = install::find_hook_binary();
    }
    auto installer = install::make_installer(provider_, options);
    installer->check_ready(uninstall_);
    const std::string question =
        uninstall_ ? "Remove the agentworks hooks for " + installer->display_name() + " from " +
                         installer->destination() + installer->also_changes(true) + "?"
                   : "Install the agentworks hooks for " + installer->display_name() + " into " +
                         installer->destination() + installer->also_changes(false) + "?";
    install::confirm_on_terminal(question, yes_);
    json result = uninstall_ ? installer->uninstall() : installer->install();
    result["provider"] = provider_;
    result["provider_name"] = installer->display_name();
    result["action"] = uninstall_ ? "uninstalled" : "installed";
    result["scope"] = global_ ? "global" : "project";
    result["project"] = options.project.string();
    result["destination"] = installer->destination();
    result["hook"] = options.hook.string();
    result["attached"] = false;  // R-H10: installing never attaches a chat
    return result;
  }

  void print(const json& r) const override {
    const bool installed = r.value("action", "") == "installed";
    std::cout << (installed ? "Installed" : "Removed") << " the agentworks hooks for " << r.value("provider_name", "")
              << (installed ? " into " : " from ") << r.value("destination", "") << ".\n";
    for (const auto& f : r.value("files", json::array())) {
      std::cout << "  " << (f.value("removed_file", false) ? "removed   "
                            : f.value("changed", false)    ? "wrote     "
                                                           : "unchanged ")
                << f.value("path", "") << "\n";
    }
    for (const auto& c : r.value("commands", json::array())) std::cout << "  ran       " << c.value("command", "") << "\n";
    if (installed) std::cout << "  hook:     " << r.value("hook", "") << "\n";
    std::cout << "No chat was attached. Next:\n";
    for (const auto& s : r.value("next_steps", json::array())) std::cout << "  - " << s.get<std::string>() << "\n";
  }

 private:
  std::string provider_;
  std::string project_;
  bool global_ = false;
  bool yes_ = false;
  bool uninstall_ = false;
  bool allow_tools_ = false;
};

}  // namespace

std::unique_ptr<Command> make_attach() { return std::make_unique<Attach>(); }

}  // namespace agentworks::cli
