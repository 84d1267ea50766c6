// The MCP tools of `agentworks mcp serve`: their descriptions and input schemas (tools/list) and the checked
// translation of a tools/call into one bridge op. Bad arguments are JSON-RPC invalid params (-32602); no argument
// can name a session (R-C8): the session comes from the caller identity only. There is no attach or detach tool
// (invariant 6: only the person attaches).
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

namespace agentworks::cli::mcp {

// {"tools":[{name, description, inputSchema}, ...]}
nlohmann::json tool_list();

// Whose tools: an attached chat's (`mcp serve`), an agent function's execution (`mcp serve --call`) or a Crew
// agent's conversation turn (`mcp serve --conversation`).
enum class ToolsFor { chat, execution, conversation };

// The five function tools (list_functions, call_function, get_function_call, reply_function_call,
// cancel_function_call): a chat's (R-D1; call_function takes notify), an agent execution's (R-D4: it polls) or a
// Crew agent's turn's (its call's questions and outcome start turns of its conversation).
nlohmann::json function_tools(ToolsFor who);
// The three wakeup tools (schedule_message_wakeup, cancel_message_wakeup, list_message_wakeups): a chat's (R-W1)
// or a Crew agent's conversation turn's (R-K2).
nlohmann::json wakeup_tools(ToolsFor who);
// The action of the `function` bridge op a function tool stands for ("list", "call", "status", "reply",
// "cancel"); nullptr for any other name.
const char* function_action(const std::string& name);

// Fills `fields` for a call of tool `name` and returns the bridge op (ack | reply | send | read | peers).
// Throws RpcError(rpc_invalid_params) for an unknown tool or bad arguments.
std::string prepare_tool_call(const std::string& name, const nlohmann::json& arguments, nlohmann::json& fields);

}  // namespace agentworks::cli::mcp
