// One installer per provider for `agentworks attach PROVIDER` (R-H10): it writes the provider's hook or plugin
// files pointing at agentworks-hook, or removes exactly those, and says what the person must do next. It never
// attaches a chat and never touches a provider's trust settings.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace agentworks::cli::install {

struct InstallOptions {
  std::filesystem::path project;  // absolute project directory (project scope)
  bool global = false;            // the person's explicit choice of user scope
  std::filesystem::path hook;     // absolute agentworks-hook (empty on uninstall when it cannot be found)
  bool allow_tools = false;       // --allow-tools: the CLI's allow rules for the messaging and function tools (item of
                                  // the confirmation; Claude Code and Codex only)
};

class Installer {
 public:
  virtual ~Installer() = default;
  // "Claude Code", "Codex", "Cursor", "Pi".
  virtual std::string display_name() const = 0;
  // Where it goes, for the confirmation question and the output: a directory or file path.
  virtual std::string destination() const = 0;
  // What else the install changes, for the confirmation question (" and …"; "" when nothing).
  virtual std::string also_changes(bool /*uninstall*/) const { return ""; }
  // Checks that can fail before the person is asked (e.g. `claude` on PATH). Throws Error.
  virtual void check_ready(bool uninstall) const = 0;
  // Do it. The result has "files": [{path, changed}], "commands": [{command, exit_code}] (provider CLIs run), "next_steps": [string] and any
  // provider-specific fields.
  virtual nlohmann::json install() = 0;
  virtual nlohmann::json uninstall() = 0;
};

// A provider's name (agentworks/providers.hpp); anything else throws Error(usage).
std::unique_ptr<Installer> make_installer(const std::string& provider, const InstallOptions& options);

std::unique_ptr<Installer> make_claude_installer(const InstallOptions& options);
std::unique_ptr<Installer> make_codex_installer(const InstallOptions& options);
std::unique_ptr<Installer> make_cursor_installer(const InstallOptions& options);
std::unique_ptr<Installer> make_pi_installer(const InstallOptions& options);

}  // namespace agentworks::cli::install
