// The actions behind the `functions` and `messages` tools of `mcp serve --full` (full_tools.hpp): each checks its
// arguments (ToolArgs), makes one server request as the login and says what it answered.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "mcp/full_tools.hpp"
#include "mcp/tool_args.hpp"

namespace agentworks::cli::mcp {

// What one action answered: the server's object (structuredContent) and the text for the agent.
struct ToolAnswer {
  nlohmann::json structured;
  std::string text;
};

ToolAnswer run_functions_action(ToolArgs& args, const LoginSource& login);
ToolAnswer run_messages_action(ToolArgs& args, const LoginSource& login);

}  // namespace agentworks::cli::mcp
