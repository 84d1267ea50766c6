// ack, reply and send as the attached agent, through the durable outbox (R-B2, invariant 3, R-C4, R-C5).
#include <nlohmann/json.hpp>

#include "agentworks/random.hpp"
#include "agentworks/validation.hpp"
#include "bridge.hpp"
#include "ops.hpp"
#include "request_fields.hpp"

namespace agentworks::bridge {

using nlohmann::json;

namespace {

AttachmentRow usable_row(Bridge& bridge, const json& req) {
  const auto key = session_key(req);
  const auto row = bridge.journal().find_attachment(key.provider, key.session_id);
  if (!row) throw Error(ErrorCode::not_found, "this session is not attached");
  if (row->state == "fenced") {
    throw Error(ErrorCode::fenced, "this attachment was superseded, detached or revoked; attach this session again");
  }
  return *row;
}

std::string message_text(const json& req) {
  const auto text = required_string(req, "message", 4 * kMaxMessageChars);
  if (!valid_message_text(text)) {
    throw Error(ErrorCode::invalid_message, "message must be 1-20,000 characters of valid UTF-8");
  }
  return text;
}

std::string submission_id(const json& req) {
  // A caller may supply its own id to make its own retries idempotent; else one is minted now, once.
  if (auto given = optional_string(req, "submission_id", kMaxSubmissionIdLength)) {
    if (!valid_client_id(*given)) throw Error(ErrorCode::bad_request, "submission_id must be printable ASCII");
    return *given;
  }
  return new_id("sub");
}

}  // namespace

void op_ack(Bridge& bridge, const json& req, const Reply& reply) {
  const auto row = usable_row(bridge, req);
  const auto message_id = required_string(req, "message_id", 200);
  const auto delivery = required_string(req, "delivery", 32);
  if (delivery != "admitted" && delivery != "processed") {
    throw Error(ErrorCode::bad_request, "delivery must be \"admitted\" or \"processed\"");
  }
  json body = {{"delivery", delivery}};
  if (auto via = optional_string(req, "via", 64)) body["via"] = *via;
  bridge.journal().set_delivery(message_id, delivery, Bridge::now());  // never offered again once acknowledged
  bridge.outbox().submit(row.attachment_id, "ack", "/v1/messages/" + message_id + "/receipt", body,
                         submission_id(req), reply);
}

void op_reply(Bridge& bridge, const json& req, const Reply& reply) {
  const auto row = usable_row(bridge, req);
  const auto inbox_id = required_string(req, "inbox_id", 200);
  const auto id = submission_id(req);
  const json body = {
      {"inbox_id", inbox_id}, {"message", message_text(req)}, {"agent_name", row.agent_name}, {"submission_id", id}};
  bridge.outbox().submit(row.attachment_id, "reply", "/v1/messages", body, id, reply);
}

void op_send(Bridge& bridge, const json& req, const Reply& reply) {
  const auto row = usable_row(bridge, req);
  const auto target = required_string(req, "target", 256);
  if (target.rfind("agent:", 0) != 0 || !valid_agent_name(target.substr(6))) {
    throw Error(ErrorCode::bad_request, "target must be \"agent:NAME\" with a valid agent name");
  }
  const auto id = submission_id(req);
  const json body = {
      {"target", target}, {"message", message_text(req)}, {"agent_name", row.agent_name}, {"submission_id", id}};
  bridge.outbox().submit(row.attachment_id, "send", "/v1/messages", body, id, reply);
}

}  // namespace agentworks::bridge
