// wakeup: what the chat's wakeup tools (schedule_message_wakeup, cancel_message_wakeup, list_message_wakeups) ask,
// as the attached agent with its child connection (R-W1). The server keeps the wakeups with the agent and decides
// every rule (limits, ranges, whose wakeup it is); the bridge only names the route.
#include <nlohmann/json.hpp>

#include "agentworks/server_client.hpp"
#include "ops/ops.hpp"
#include "request/request_fields.hpp"
#include "state/journal.hpp"

namespace agentworks::bridge {

using nlohmann::json;

namespace {

constexpr long kWakeupTimeoutMs = 15000;

struct WakeupRequest {
  std::string method;
  std::string path;
  json body;  // null for GET
};

WakeupRequest wakeup_request(const json& req, const std::string& agent_name) {
  const std::string base = "/v1/agents/" + url_encode(agent_name) + "/wakeups";
  const std::string action = required_string(req, "action", 16);
  if (action == "schedule") {
    only_action_fields(req, {"after_minutes", "at", "note", "wakeup_id"});
    json body = {{"note", required_string(req, "note", 8000)}};
    if (const auto it = req.find("after_minutes"); it != req.end() && !it->is_null()) {
      if (!it->is_number_integer())
        throw Error(ErrorCode::bad_request, "field 'after_minutes' must be a whole number of minutes (1-43200)");
      body["after_minutes"] = *it;
    }
    if (auto at = optional_string(req, "at", 64)) body["at"] = *at;
    if (auto id = optional_string(req, "wakeup_id", 64)) body["wakeup_id"] = *id;
    return {"POST", base, std::move(body)};
  }
  if (action == "cancel") {
    only_action_fields(req, {"wakeup_id"});
    return {"POST", base + "/" + url_encode(required_string(req, "wakeup_id", 64)) + "/cancel", json::object()};
  }
  if (action == "list") {
    only_action_fields(req, {});
    return {"GET", base, nullptr};
  }
  throw Error(ErrorCode::bad_request, "field 'action' must be schedule, cancel or list");
}

}  // namespace

void op_wakeup(Bridge& bridge, const json& req, const Reply& reply, const AttachmentRow* session) {
  const AttachmentRow row = *session;  // resolved by dispatch() (claims_session)
  const WakeupRequest request = wakeup_request(req, row.agent_name);
  relay_as_agent(bridge, row, request.method, request.path, request.body, reply, kWakeupTimeoutMs);
}

}  // namespace agentworks::bridge
