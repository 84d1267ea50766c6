// The actions behind the `functions` and `messages` tools of `mcp serve --full` (full_tools.hpp): each checks its
// arguments (ToolArgs), makes one server request as the login and says what it answered.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "mcp/full_tools.hpp"
#include "mcp/tool_args.hpp"

namespace agentworks::cli::mcp {

// Each returns what the server answered (structuredContent) and sets `text` to what it says to the agent.
nlohmann::json run_functions_action(ToolArgs& args, const LoginSource& login, std::string& text);
nlohmann::json run_messages_action(ToolArgs& args, const LoginSource& login, std::string& text);

}  // namespace agentworks::cli::mcp
