// The MCP tasks extension on `mcp serve --full` (R-D5, docs/mcp.md "Calls as MCP tasks"): the stateless revision
// 2026-07-28 that Claude Code speaks first (`server/discover`, every request carrying its version and the client's
// capabilities in `_meta`), and a `functions_call` answered as a task when that request's client declares
// the `io.modelcontextprotocol/tasks` extension. The task is the call record itself (taskId = call_id): tasks/get
// reads it, tasks/update answers its pending question through the reply route, tasks/cancel is the cancel route.
// Nothing is kept in this process, so a restarted server process answers for every task it made.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "mcp/full_tools.hpp"

namespace agentworks::cli::mcp {

inline constexpr const char* kStatelessVersion = "2026-07-28";
inline constexpr const char* kTasksExtension = "io.modelcontextprotocol/tasks";

// True when the request names the stateless revision in params._meta (its answers then carry resultType).
bool stateless_request(const nlohmann::json& params);
// True when the request's client declares the tasks extension in params._meta.
bool client_takes_tasks(const nlohmann::json& params);

// The answer to server/discover: the stateless revision with the tools capability and the tasks extension.
nlohmann::json discover_answer();

// The task for a call just made (the structuredContent of functions_call), resultType "task".
nlohmann::json task_created(const nlohmann::json& call);

// tasks/get, tasks/update, tasks/cancel (params with taskId). Throw RpcError for a bad or unknown task.
nlohmann::json task_get(const nlohmann::json& params, const LoginSource& login);
nlohmann::json task_update(const nlohmann::json& params, const LoginSource& login);
nlohmann::json task_cancel(const nlohmann::json& params, const LoginSource& login);

// The task object of a call as the server shows it (exposed for the unit test of the mapping).
nlohmann::json task_of_call(const nlohmann::json& call);

}  // namespace agentworks::cli::mcp
