// The tools of `agentworks mcp serve --full` (the person's opt-in connection with their own login, docs/mcp.md):
// `functions` (list, call, status, read, reply on a Crew's functions), `messages` (send, read, state, register,
// list_agents on the server's message routes) and `help` (context). Strict input schemas (no field beyond the
// declared ones); each action takes only its own fields. Every failure is a tool error carrying the stable code.
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "agentworks/config.hpp"

namespace agentworks::cli::mcp {

// The login to use for one tool call (read per call, so a later `agentworks login` applies at once); throws
// Error(unauthenticated) when there is none.
using LoginSource = std::function<Config()>;

// {"tools":[{name, description, inputSchema}, ...]}
nlohmann::json full_tool_list();

// One tools/call: {content:[{type:"text",text}], structuredContent, isError}. Never throws Error (it becomes
// the tool error); an unknown tool is RpcError(invalid params).
nlohmann::json call_full_tool(const std::string& name, const nlohmann::json& arguments, const LoginSource& login);

// The `help` tool's context text (also the server's instructions).
std::string full_help_context();

}  // namespace agentworks::cli::mcp
