// ack, reply and send as the attached agent, through the durable outbox (R-B2, invariant 3, R-C4, R-C5).
#include <nlohmann/json.hpp>

#include "agentworks/random.hpp"
#include "agentworks/sqlite.hpp"
#include "agentworks/validation.hpp"
#include "bridge.hpp"
#include "delivery/reply_target.hpp"
#include "platform/log.hpp"
#include "ops/ops.hpp"
#include "request/request_fields.hpp"

namespace agentworks::bridge {

using nlohmann::json;

namespace {

// A caller's retry with the same submission_id answers the recorded outcome instead of journaling it twice; the
// same id for a different request is a conflict (as on the server).
bool answer_repeated(Bridge& bridge, const std::string& kind, const std::string& path, const json& body,
                     const std::string& id, const Reply& reply) {
  sql::Stmt s(bridge.journal().db(), "SELECT kind, path, body, state, result FROM outbox WHERE submission_id = ?1");
  s.bind(1, id);
  if (!s.step()) return false;
  if (s.text(0) != kind || s.text(1) != path || json::parse(s.text(2), nullptr, false) != body) {
    throw Error(ErrorCode::conflict, "submission_id " + id + " was already used for a different request");
  }
  const std::string state = s.text(3);
  const json result = json::parse(s.opt_text(4).value_or("{}"), nullptr, false);
  if (state == "queued") {
    reply.ok({{"queued", true}, {"state", "queued"}, {"submission_id", id},
              {"note", "already queued; the bridge retries it, oldest first"}});
  } else if (state == "done") {
    reply.ok({{"state", "sent"}, {"submission_id", id}, {"answer", result.is_object() ? result : json::object()}});
  } else {
    const json err = result.is_object() && result.contains("error") ? result["error"] : json::object();
    reply.error(parse_code(err.value("code", "internal")).value_or(ErrorCode::internal),
                err.value("message", "the server refused this submission"));
  }
  return true;
}


std::string message_text(const json& req) {
  const auto text = required_string(req, "message", 4 * kMaxMessageChars);
  if (!valid_message_text(text)) {
    throw Error(ErrorCode::invalid_message, kMessageRule);
  }
  return text;
}

}  // namespace

void submit_once(Bridge& bridge, const AttachmentRow& row, const std::string& kind, const std::string& path,
                 const json& body, const std::string& id, const Reply& reply) {
  if (answer_repeated(bridge, kind, path, body, id, reply)) return;
  bridge.outbox().submit(row.attachment_id, kind, path, body, id, reply);
}

namespace {

std::string submission_id(const json& req) {
  // A caller may supply its own id to make its own retries idempotent; else one is minted now, once.
  if (auto given = optional_string(req, "submission_id", kMaxSubmissionIdLength)) {
    check_submission_id(*given);
    return *given;
  }
  return new_id("sub");
}

}  // namespace

void op_ack(Bridge& bridge, const json& req, const Reply& reply, const AttachmentRow* session) {
  const AttachmentRow row = *session;  // resolved by dispatch() (claims_session)
  const auto message_id = required_string(req, "message_id", 200);
  const auto delivery = required_string(req, "delivery", 32);
  if (delivery != "admitted" && delivery != "processed") {
    throw Error(ErrorCode::bad_request, "delivery must be \"admitted\" or \"processed\"");
  }
  json body = {{"delivery", delivery}};
  if (auto via = optional_string(req, "via", 64)) body["via"] = *via;
  const auto id = submission_id(req);
  const std::string path = "/v1/messages/" + message_id + "/receipt";
  if (answer_repeated(bridge, "ack", path, body, id, reply)) return;
  const auto acknowledged = delivery == "admitted" ? MessageState::admitted : MessageState::processed;
  bridge.journal().set_delivery(message_id, acknowledged, Bridge::now());  // never offered again once acknowledged
  bridge.outbox().submit(row.attachment_id, "ack", path, body, id, reply);
}

void op_no_reply(Bridge& bridge, const json& req, const Reply& reply, const AttachmentRow* session) {
  const AttachmentRow row = *session;  // resolved by dispatch() (claims_session)
  const auto message_id = required_string(req, "message_id", 200);
  const auto reason = optional_string(req, "reason", 4 * kMaxNoReplyReasonChars);
  if (reason && (!utf8_length(*reason) || *utf8_length(*reason) > kMaxNoReplyReasonChars))
    throw Error(ErrorCode::bad_request, "reason must be valid UTF-8 of at most 500 characters");
  const json body = {{"delivery", "processed"}, {"reply_state", "no_reply"}, {"via", "agent"}};
  const auto id = submission_id(req);
  const std::string path = "/v1/messages/" + message_id + "/receipt";
  if (answer_repeated(bridge, "ack", path, body, id, reply)) return;
  // R-X2: the reason is the agent's own note; the sender only learns that it declined.
  log::info(row.agent_name + " declined to answer " + message_id + (reason ? ": " + echo_typed(*reason, 500) : ""));
  bridge.journal().set_delivery(message_id, MessageState::processed, Bridge::now());
  bridge.outbox().submit(row.attachment_id, "ack", path, body, id, reply);
}

void op_reply(Bridge& bridge, const json& req, const Reply& reply, const AttachmentRow* session) {
  const AttachmentRow row = *session;  // resolved by dispatch() (claims_session)
  const auto text = message_text(req);
  const auto id = submission_id(req);
  auto submit = [&bridge, row, text, id, reply](const std::string& inbox_id) {
    const json body = {{"inbox_id", inbox_id}, {"message", text}, {"agent_name", row.agent_name}, {"submission_id", id}};
    submit_once(bridge, row, "reply", "/v1/messages", body, id, reply);
  };
  if (const auto inbox_id = optional_string(req, "inbox_id", 200); inbox_id && !inbox_id->empty()) {
    submit(*inbox_id);
    return;
  }
  // By message id: the conversation of a message this chat received (R-C5); retired ids need the inbox (R-B13).
  const auto message_id = optional_string(req, "message_id", 200);
  if (!message_id || message_id->empty()) {
    throw Error(ErrorCode::bad_request, "field 'inbox_id' or 'message_id' is required");
  }
  find_reply_inbox(bridge, row, *message_id, reply, submit);
}

void op_send(Bridge& bridge, const json& req, const Reply& reply, const AttachmentRow* session) {
  const AttachmentRow row = *session;  // resolved by dispatch() (claims_session)
  const auto target = required_string(req, "target", 256);
  if (target.rfind("agent:", 0) != 0 || !valid_agent_name(target.substr(6))) {
    throw Error(ErrorCode::bad_request, "target must be \"agent:NAME\" with a valid agent name");
  }
  const auto id = submission_id(req);
  const json body = {
      {"target", target}, {"message", message_text(req)}, {"agent_name", row.agent_name}, {"submission_id", id}};
  submit_once(bridge, row, "send", "/v1/messages", body, id, reply);
}

}  // namespace agentworks::bridge
