// The tools of `agentworks mcp serve --full` (the person's opt-in connection with their own login, docs/mcp.md): one
// flat tool per action, so each has its own strict input schema (its own `required`, no field beyond its own) and
// an output schema for its structuredContent: functions_list|call|status|read|reply|cancel on a Crew's functions,
// messages_send|ask_crew|read|receipt, agents_state|register|list and wakeups_schedule|cancel|list on the server's
// message routes, and help. Every failure is a tool error carrying the stable code.
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "agentworks/config.hpp"

namespace agentworks::cli::mcp {

// The login to use for one tool call (read per call, so a later `agentworks login` applies at once); throws
// Error(unauthenticated) when there is none.
using LoginSource = std::function<Config()>;

// {"tools":[{name, description, inputSchema, outputSchema?}, ...]}
nlohmann::json full_tool_list();

// One tools/call: {content:[{type:"text",text}], structuredContent, isError}. Never throws Error (it becomes
// the tool error); an unknown tool is RpcError(invalid params).
nlohmann::json call_full_tool(const std::string& name, const nlohmann::json& arguments, const LoginSource& login);

// The `help` tool's context text (also the server's instructions).
std::string full_help_context();

}  // namespace agentworks::cli::mcp
