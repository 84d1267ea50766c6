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

// Fills `fields` for a call of tool `name` and returns the bridge op (ack | reply | send | read | peers).
// Throws RpcError(rpc_invalid_params) for an unknown tool or bad arguments.
std::string prepare_tool_call(const std::string& name, const nlohmann::json& arguments, nlohmann::json& fields);

}  // namespace agentworks::cli::mcp
