// function: what the chat's function tools (list_functions, call_function, get_function_call,
// reply_function_call, cancel_function_call) and `agentworks bridge function …` ask, as the attached agent with
// its child connection (R-D1). The server decides everything: the person's grant, which calls the agent may read,
// the inputs. A call goes through the durable outbox with a submission id (minted here when the agent gave none):
// while the server is down it is answered `queued` and made later, once; a Crew at its limit answers `busy`.
#include <nlohmann/json.hpp>

#include "agentworks/random.hpp"
#include "agentworks/server_client.hpp"
#include "agentworks/validation.hpp"
#include "bridge.hpp"
#include "delivery/op_guard.hpp"
#include "delivery/server_call.hpp"
#include "ops/ops.hpp"
#include "request/request_fields.hpp"

namespace agentworks::bridge {

using nlohmann::json;

namespace {

constexpr long kFunctionCallTimeoutMs = 15000;

std::string call_path(const json& req) {
  const std::string id = required_string(req, "call_id", 64);
  if (id.rfind("call_", 0) != 0) throw Error(ErrorCode::bad_request, "field 'call_id' must be a call id (call_…)");
  return "/v1/calls/" + url_encode(id);
}

struct ServerRequest {
  std::string method;
  std::string path;
  json body;  // null for GET
  std::optional<std::string> submission_id;
};

ServerRequest server_request(const json& req) {
  const std::string action = required_string(req, "action", 16);
  if (action == "list") {
    only_action_fields(req, {"target"});
    return {"GET", "/v1/crews/" + url_encode(required_string(req, "target", 200)) + "/functions", nullptr, {}};
  }
  if (action == "call") {
    only_action_fields(req, {"target", "function", "arguments", "submission_id", "notify"});
    const auto it = req.find("arguments");
    if (it == req.end() || !it->is_object())
      throw Error(ErrorCode::bad_request, "field 'arguments' must be an object (the function's inputs)");
    std::string submission = optional_string(req, "submission_id", 200).value_or("");
    if (submission.empty()) submission = "chat-" + random_hex(16);
    check_submission_id(submission);
    json body = {{"function", required_string(req, "function", 200)},
                 {"arguments", *it},
                 {"submission_id", submission},
                 {"notify", optional_bool(req, "notify", true)}};
    return {"POST", "/v1/crews/" + url_encode(required_string(req, "target", 200)) + "/calls", std::move(body),
            submission};
  }
  if (action == "status") {
    only_action_fields(req, {"call_id", "after", "message_limit", "after_event"});
    std::string path = call_path(req);
    path += "?after=" + std::to_string(optional_int(req, "after", -1, -1, INT64_MAX));
    path += "&message_limit=" + std::to_string(optional_int(req, "message_limit", 100, 1, 500));
    path += "&after_event=" + std::to_string(optional_int(req, "after_event", -1, -1, INT64_MAX));
    return {"GET", path, nullptr, {}};
  }
  if (action == "reply") {
    only_action_fields(req, {"call_id", "request_id", "answer"});
    return {"POST", call_path(req) + "/replies",
            json{{"request_id", required_string(req, "request_id", 64)},
                 {"answer", required_string(req, "answer", 80000)}},
            {}};
  }
  if (action == "cancel") {
    only_action_fields(req, {"call_id"});
    return {"POST", call_path(req) + "/cancel", json::object(), {}};
  }
  throw Error(ErrorCode::bad_request, "field 'action' must be list, call, status, reply or cancel");
}

}  // namespace

void op_function(Bridge& bridge, const json& req, const Reply& reply, const AttachmentRow* session) {
  const AttachmentRow row = *session;  // resolved by dispatch() (claims_session)
  const ServerRequest request = server_request(req);
  if (request.submission_id) {  // a call: the outbox's answer ({state: sent, answer} or {queued}), as for a send
    submit_once(bridge, row, "call", request.path, request.body, *request.submission_id, reply);
    return;
  }
  relay_as_agent(bridge, row, request.method, request.path, request.body, reply, kFunctionCallTimeoutMs);
}

void relay_as_agent(Bridge& bridge, const AttachmentRow& row, const std::string& method, const std::string& path,
                    const json& body, const Reply& reply, long timeout_ms) {
  const auto token = bridge.token_for(row);
  if (!token) throw Error(ErrorCode::fenced, "this chat's agent has no stored child connection; attach this chat again");
  call_server(
      bridge, method, row.server_url, path, *token, body,
      [&bridge, row, reply](const ServerAnswer& a) {
        guarded(bridge, reply, [&] {
          if (a.error != nullptr) throw *a.error;
          // Nested: the server's object has fields (`error`) that the socket's envelope gives a meaning.
          reply.ok(json{{"agent_name", row.agent_name}, {"answer", *a.body}});
        });
      },
      timeout_ms);
}

}  // namespace agentworks::bridge
