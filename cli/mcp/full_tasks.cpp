#include "mcp/full_tasks.hpp"

#include <iostream>

#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "agentworks/utc_time.hpp"
#include "functions/describe.hpp"
#include "functions/routes.hpp"
#include "mcp/elicitation.hpp"
#include "mcp/jsonrpc.hpp"
#include "mcp/tool_args.hpp"
#include "session.hpp"

namespace agentworks::cli::mcp {
using nlohmann::json;
namespace {

constexpr long long kPollIntervalMs = 1000;
// A call's record outlives any client's interest in it; a week is what the task promises to keep.
constexpr long long kTaskTtlMs = 7LL * 24 * 3600 * 1000;

const json* meta_of(const json& params) {
  if (!params.is_object()) return nullptr;
  const auto it = params.find("_meta");
  return it != params.end() && it->is_object() ? &*it : nullptr;
}

void log_task(const std::string& text) { std::cerr << "agentworks mcp --full: " << text << std::endl; }

std::string task_id_of(const json& params) {
  if (!params.is_object() || !params.contains("taskId") || !params["taskId"].is_string() ||
      params["taskId"].get<std::string>().empty())
    throw RpcError(rpc_invalid_params, "the request needs 'taskId' (the call_id of a functions call)");
  return params["taskId"].get<std::string>();
}

// A server refusal about the task itself (unknown, not visible) is a protocol error naming the code.
[[noreturn]] void task_refused(const std::string& task_id, const Error& e) {
  throw RpcError(e.code() == ErrorCode::not_found ? rpc_invalid_params : rpc_internal_error,
                 "task " + task_id + ": " + std::string(code_name(e.code())) + ": " + e.what());
}

json read_call(const std::string& task_id, const LoginSource& login) {
  const Config config = login();
  return client_for(config).get(functions::call_path(task_id));
}

// Each pending question as an elicitation form, keyed by its request_id (unique per call).
json input_requests(const json& call) {
  json out = json::object();
  for (const json& in : call.value("pending_inputs", json::array())) {
    bool own = false;
    const json schema = requested_schema(in.value("schema", json()), own);
    out[string_field(in, "request_id")] = {
        {"method", "elicitation/create"},
        {"params", {{"mode", "form"}, {"message", string_field(in, "question")}, {"requestedSchema", schema}}}};
  }
  return out;
}

}  // namespace

bool stateless_request(const json& params) {
  const json* meta = meta_of(params);
  if (!meta) return false;
  const auto it = meta->find("io.modelcontextprotocol/protocolVersion");
  return it != meta->end() && it->is_string() && it->get<std::string>() == kStatelessVersion;
}

bool client_takes_tasks(const json& params) {
  const json* meta = meta_of(params);
  if (!meta) return false;
  const auto caps = meta->find("io.modelcontextprotocol/clientCapabilities");
  if (caps == meta->end() || !caps->is_object()) return false;
  const auto ext = caps->find("extensions");
  return ext != caps->end() && ext->is_object() && ext->contains(kTasksExtension);
}

json discover_answer() {
  return {{"supportedVersions", json::array({kStatelessVersion})},
          {"capabilities", {{"tools", {{"listChanged", false}}}, {"extensions", {{kTasksExtension, json::object()}}}}},
          {"serverInfo", {{"name", "agentworks-full"}, {"version", "0.1.0"}}},
          {"instructions", full_help_context()}};
}

// R-D5: queued or running is working; a pending question is input_required; a function that ran and failed is
// completed with isError (its failure is a result); a call that could not start or was interrupted is failed.
json task_of_call(const json& call) {
  const std::string status = call.value("status", "");
  json task = {{"taskId", call.value("call_id", "")},
               {"createdAt", utc_text(call.value("created_at", 0LL))},
               {"lastUpdatedAt", utc_text(call.value("updated_at", call.value("created_at", 0LL)))},
               {"ttlMs", kTaskTtlMs},
               {"pollIntervalMs", kPollIntervalMs}};
  const std::string what = string_field(call, "crew_name") + "/" + string_field(call, "function");
  const json error = call.value("error", json());
  const std::string error_code = error.is_object() ? string_field(error, "code") : "";
  const std::string error_text = error.is_object() ? string_field(error, "message") : "";
  if (status == "waiting_input") {
    task["status"] = "input_required";
    task["statusMessage"] = what + " asks a question";
    task["inputRequests"] = input_requests(call);
  } else if (status == "completed" || (status == "failed" && error_code != "spawn_failed")) {
    task["status"] = "completed";
    task["statusMessage"] = what + " " + status;
    // Text only: Claude Code hands a result's structuredContent to the model in place of its text, and the text is
    // what an agent reads well; the whole record is one `functions_status` away.
    task["result"] = {{"content", json::array({{{"type", "text"}, {"text", functions::describe_call(call, functions::Surface::mcp)}}})},
                      {"isError", status == "failed"}};
  } else if (status == "failed" || status == "interrupted") {
    task["status"] = "failed";
    task["statusMessage"] = what + " " + status;
    task["error"] = {{"code", rpc_internal_error},
                     {"message", status == "interrupted" ? "the call was interrupted (its server stopped while it ran)"
                                                         : "the call could not run: " + error_text},
                     {"data", {{"call_id", call.value("call_id", "")}, {"status", status}, {"error", error}}}};
  } else if (status == "cancelled") {
    task["status"] = "cancelled";
    task["statusMessage"] = what + " cancelled";
  } else {
    task["status"] = "working";
    const std::string progress = string_field(call, "progress");
    task["statusMessage"] = what + " " + (progress.empty() ? status : progress);
  }
  return task;
}

json task_created(const json& call) {
  json task = task_of_call(call);
  task["resultType"] = "task";
  return task;
}

json task_get(const json& params, const LoginSource& login) {
  const std::string id = task_id_of(params);
  try {
    return task_of_call(read_call(id, login));
  } catch (const Error& e) {
    // The call goes on whatever this process can see: an unreachable server is no outcome.
    if (e.code() != ErrorCode::unreachable && e.code() != ErrorCode::unavailable) task_refused(id, e);
    log_task("tasks/get " + id + ": " + e.what());
    return {{"taskId", id},
            {"status", "working"},
            {"statusMessage", "the agentworks server cannot be reached; the call's state is unknown, asking again"},
            {"ttlMs", kTaskTtlMs},
            {"pollIntervalMs", kPollIntervalMs}};
  }
}

json task_update(const json& params, const LoginSource& login) {
  const std::string id = task_id_of(params);
  const auto it = params.find("inputResponses");
  if (it == params.end() || !it->is_object() || it->empty())
    throw RpcError(rpc_invalid_params, "tasks/update needs 'inputResponses': {request_id: elicitation result}");
  try {
    const json call = read_call(id, login);
    for (const auto& [request_id, response] : it->items()) {
      std::optional<json> pending;
      for (const json& in : call.value("pending_inputs", json::array()))
        if (string_field(in, "request_id") == request_id) pending = in;
      if (!pending) throw RpcError(rpc_invalid_params, "task " + id + " has no pending question " + request_id);
      if (!response.is_object() || response.value("action", "") != "accept" || !response.contains("content") ||
          !response["content"].is_object()) {
        log_task("the question " + request_id + " of task " + id + " was not answered; it stays pending");
        continue;
      }
      bool own = false;
      requested_schema(pending->value("schema", json()), own);
      const Config config = login();
      client_for(config).post(functions::call_path(id) + "/replies",
                              {{"request_id", request_id}, {"answer", elicited_answer(response["content"], own)}});
    }
    return task_of_call(read_call(id, login));
  } catch (const Error& e) {
    task_refused(id, e);
  }
}

json task_cancel(const json& params, const LoginSource& login) {
  const std::string id = task_id_of(params);
  try {
    const Config config = login();
    return task_of_call(client_for(config).post(functions::call_path(id) + "/cancel", functions::cancel_body(0)));
  } catch (const Error& e) {
    task_refused(id, e);
  }
}

}  // namespace agentworks::cli::mcp
