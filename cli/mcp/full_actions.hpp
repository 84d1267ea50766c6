// The tools of `mcp serve --full` behind their schemas (full_tools.hpp): each checks its arguments (ToolArgs), makes
// one server request as the login and says what it answered.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "mcp/full_tools.hpp"
#include "mcp/tool_args.hpp"

namespace agentworks::cli::mcp {

// Each returns what the server answered (structuredContent) and sets `text` to what it says to the agent.
// `tool` is the tool's name: functions_* for the first, messages_*, agents_* and wakeups_* for the second.
nlohmann::json run_functions_tool(const std::string& tool, ToolArgs& args, const LoginSource& login, std::string& text);
nlohmann::json run_messages_tool(const std::string& tool, ToolArgs& args, const LoginSource& login, std::string& text);

}  // namespace agentworks::cli::mcp
