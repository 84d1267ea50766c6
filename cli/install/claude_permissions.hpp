// `agentworks attach claude --allow-tools`: Claude Code's allow rules for exactly the messaging and function tools of the
// plugin's MCP server (`permissions.allow` in the scope's settings.json; Claude Code 2.1.332 names them
// mcp__plugin_agentworks_agentworks__TOOL), so a call runs without the per-call question. Only our five entries
// are added or removed; everything else in the file stays.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace agentworks::cli::install {

// mcp__plugin_agentworks_agentworks__agent_message_ack, … (the five).
std::vector<std::string> claude_messaging_tool_rules();

// Adds the missing rules to permissions.allow of `settings` (created when missing). Returns {path, changed}.
nlohmann::json add_claude_allow_rules(const std::filesystem::path& settings);
// Removes exactly those rules (and permissions.allow / permissions when that leaves them empty). Returns
// {path, changed}.
nlohmann::json remove_claude_allow_rules(const std::filesystem::path& settings);

}  // namespace agentworks::cli::install
