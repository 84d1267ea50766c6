// Shared steps of the installers: writing embedded template trees to disk with the hook path filled in, and
// merging/removing our entries in a provider's hooks file.
#pragma once

#include <filesystem>
#include <initializer_list>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace agentworks::cli::install {

// Writes every embedded file whose path starts with one of `prefixes` under `dest` (same relative path). JSON
// files get the placeholders replaced: the hook by `hook_command`, the CLI by agentworks_cli_path(). Returns
// [{path, changed}].
nlohmann::json materialize(std::initializer_list<std::string_view> prefixes, const std::filesystem::path& dest,
                           const std::string& hook_command);

// The absolute path of the running agentworks (/proc/self/exe), for the plugins' MCP server command.
std::string agentworks_cli_path();

// Merges the embedded template `template_path` (placeholder replaced) into the hooks file `target`.
// Returns {path, changed}.
nlohmann::json merge_into_hooks_file(std::string_view template_path, const std::filesystem::path& target,
                                     const std::string& hook_command);

// Removes our entries from `target`; deletes the file when nothing else is left in it. Returns
// {path, changed, removed_file}.
nlohmann::json remove_from_hooks_file(const std::filesystem::path& target, const std::string& hook_command);

// The shell-quoted hook path for hook commands ("" when `hook` is empty).
std::string hook_command_for(const std::filesystem::path& hook);

}  // namespace agentworks::cli::install
