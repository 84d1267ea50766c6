// Merging our hook entries into a provider's hooks file and taking them out again, leaving everybody else's.
// Works on both shapes: Claude/Codex `{"hooks":{"Event":[{"matcher"?,"hooks":[{"type","command",…}]}]}}` and
// Cursor `{"version":1,"hooks":{"event":[{"command",…}]}}`. An entry is ours when its command runs
// agentworks-hook (by name, or the exact hook path being installed).
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace agentworks::cli::install {

// True when `command` runs agentworks-hook (`hook` is the shell-quoted path being installed).
bool is_agentworks_command(const std::string& command, const std::string& hook);

// Replaces every `placeholder` inside string values of `doc` with `value`.
void substitute(nlohmann::json& doc, std::string_view placeholder, const std::string& value);
// substitute() of kHookPlaceholder.
void substitute_hook(nlohmann::json& doc, const std::string& hook);

// `existing` (null or an object) with our old entries removed and the events of `ours` appended.
// Throws Error(bad_request) when `existing` is not a hooks file (its path is in `what` for the message).
nlohmann::json merge_hooks(const nlohmann::json& existing, const nlohmann::json& ours, const std::string& hook,
                           const std::string& what);

// `existing` without our entries; events left empty by that are dropped.
nlohmann::json remove_hooks(const nlohmann::json& existing, const std::string& hook, const std::string& what);

// True when `doc` holds nothing but an empty "hooks" object (and "version"): the file can go.
bool hooks_file_empty(const nlohmann::json& doc);

}  // namespace agentworks::cli::install
