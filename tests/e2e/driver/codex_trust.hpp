// Trusting Codex hooks the way a person does: in the TUI the person accepts "trust this folder" and then
// reviews the hooks in `/hooks`; both end up in $CODEX_HOME/config.toml (`[projects."DIR"] trust_level`,
// `[hooks.state."KEY"] trusted_hash`). The tests write them through `codex app-server` (hooks/list,
// config/batchWrite), never by bypassing trust.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "testing/process.hpp"

namespace agentworks::e2e {

struct ListedHook {
  std::string key;
  std::string event;    // "stop", "userPromptSubmit", ...
  std::string command;
  std::string trust;    // "trusted", "untrusted", "modified", ...
};

// hooks/list for `project` as Codex sees it now.
std::vector<ListedHook> list_codex_hooks(const std::filesystem::path& codex, const testing::EnvOverrides& env,
                                         const std::filesystem::path& project);

// Marks `project` trusted, then trusts every hook listed for it whose command runs agentworks-hook.
// Returns the hooks after trusting (all should say "trusted").
std::vector<ListedHook> trust_agentworks_hooks(const std::filesystem::path& codex, const testing::EnvOverrides& env,
                                               const std::filesystem::path& project);

}  // namespace agentworks::e2e
