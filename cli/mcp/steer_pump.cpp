#include "mcp/steer_pump.hpp"

#include <nlohmann/json.hpp>

#include "agentworks/bridge_client.hpp"
#include "agentworks/error.hpp"
#include "agentworks/local_protocol.hpp"

namespace agentworks::cli::mcp {

using nlohmann::json;
using std::chrono::milliseconds;

namespace {

constexpr milliseconds kSteerWait{25000};
constexpr milliseconds kCallSlack{10000};  // the push's release check is a server round trip

}  // namespace

SteerPump::SteerPump(LineWriter& writer, CallerIdentity caller, std::string session_id, SteerOffer offer)
    : writer_(writer),
      caller_(std::move(caller)),
      session_id_(std::move(session_id)),
      offer_(std::move(offer)),
      loop_("steer", [this](int cancel_fd) { return wait_once(cancel_fd); }) {}

milliseconds SteerPump::wait_once(int cancel_fd) {
  json request = {{"op", local_protocol::op::steer_wait},
                  {"wait_ms", kSteerWait.count()},
                  {"pi_version", offer_.pi_version},
                  {"fresh", fresh_}};
  if (!offer_.unusable.empty()) request["unusable"] = offer_.unusable;
  add_session_selector(request, caller_, session_id_);
  const auto started = std::chrono::steady_clock::now();
  const json answer = bridge_client::call_cancellable(request, kSteerWait + kCallSlack, cancel_fd);
  fresh_ = false;
  if (answer.value("route", std::string()) == "off") {
    writer_.write(rpc_notification("notifications/agentworks/steer_off", {{"reason", answer.value("reason", "")}}));
    return LongPollLoop::kEnd;  // this Pi cannot be steered: the extension delivers at the end of each turn
  }
  const auto push = answer.find("push");
  if (push != answer.end() && push->is_object()) {
    writer_.write(rpc_notification("notifications/agentworks/steer",
                                   {{"push_id", push->value("push_id", "")}, {"text", push->value("text", "")}}));
    return LongPollLoop::kAtOnce;
  }
  return std::chrono::steady_clock::now() - started >= kSteerWait / 2 ? LongPollLoop::kAtOnce : LongPollLoop::kNoPark;
}

json forward_steer_result(const json& params, const CallerIdentity& caller, const std::string& session_id) {
  json request = {{"op", local_protocol::op::steer_result}};
  for (const char* field : {"push_id", "outcome", "detail"}) {
    if (params.is_object() && params.contains(field)) request[field] = params[field];
  }
  add_session_selector(request, caller, session_id);
  const json answer = bridge_client::call(request, std::chrono::seconds(5));
  return {{"settled", answer.value("settled", false)}};
}

}  // namespace agentworks::cli::mcp
