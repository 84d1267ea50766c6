// Pi's native route on the socket (native/pi_steer.hpp): the extension's parked wait and its word on each push.
#include <chrono>

#include <nlohmann/json.hpp>

#include "agentworks/providers.hpp"
#include "bridge.hpp"
#include "native/native_router.hpp"
#include "native/pi_steer.hpp"
#include "ops/ops.hpp"
#include "request/request_fields.hpp"

namespace agentworks::bridge {

using nlohmann::json;

namespace {

constexpr std::int64_t kMaxSteerWaitMs = 60000;

const AttachmentRow& pi_session(const AttachmentRow* session) {
  if (!is_provider(session->provider, Provider::pi)) {
    throw Error(ErrorCode::bad_request, "steer_wait and steer_result serve the agentworks Pi extension; this chat "
                                        "is a " + session->provider + " chat");
  }
  return *session;
}

}  // namespace

void op_steer_wait(Bridge& bridge, const json& req, const Reply& reply, const AttachmentRow* session) {
  const AttachmentRow row = pi_session(session);  // resolved by dispatch() (claims_session)
  const auto wait = std::chrono::milliseconds(optional_int(req, "wait_ms", 25000, 0, kMaxSteerWaitMs));
  const auto version = optional_string(req, "pi_version", 64).value_or("");
  const auto unusable = optional_string(req, "unusable", 500).value_or("");
  const bool fresh = optional_bool(req, "fresh", false);
  if (row.state != AttachmentState::attached) {
    // Not a route decision: the extension asks again, and a resume brings the route back.
    throw Error(ErrorCode::not_found, "this Pi chat's attachment is " + std::string(to_string(row.state)) +
                                          "; the person types /agentworks resume to reconnect it");
  }
  std::optional<std::string> refusal = native::unverified_pi_version(version);
  if (!refusal && !unusable.empty()) refusal = "the agentworks Pi extension cannot steer this Pi: " + unusable;
  if (refusal) {
    bridge.native().pi_refused(row.attachment_id, *refusal);
    reply.ok({{"push", nullptr}, {"route", "off"}, {"reason", *refusal}});
    return;
  }
  bridge.native().pi_waiting(row.attachment_id, wait, reply, fresh);
}

void op_steer_result(Bridge& bridge, const json& req, const Reply& reply, const AttachmentRow* session) {
  const AttachmentRow row = pi_session(session);
  const auto push_id = required_string(req, "push_id", 64);
  const auto outcome = required_string(req, "outcome", 16);
  if (outcome != "written" && outcome != "refused") {
    throw Error(ErrorCode::bad_request, "field 'outcome' must be written (Pi took the text) or refused (nothing was "
                                        "handed to Pi)");
  }
  const auto detail = optional_string(req, "detail", 500).value_or("");
  const bool written = outcome == "written";
  const native::PushResult result{written ? native::PushOutcome::accepted : native::PushOutcome::refused,
                                  detail.empty() ? (written ? "Pi took it" : "Pi refused it") : detail};
  const bool settled = bridge.native().pi_result(row.attachment_id, push_id, result);
  // A Pi that refused a text is not steered again until its extension starts anew (R-N3).
  if (settled && !written) bridge.native().pi_refused(row.attachment_id, "Pi refused a pushed message: " + result.detail);
  reply.ok({{"settled", settled}});
}

}  // namespace agentworks::bridge
