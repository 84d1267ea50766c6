// ack, reply and send as the attached agent, through the durable outbox (R-B2, invariant 3, R-C4, R-C5).
#include <algorithm>
#include <memory>

#include <nlohmann/json.hpp>

#include "agentworks/random.hpp"
#include "agentworks/sqlite.hpp"
#include "agentworks/validation.hpp"
#include "bridge.hpp"
#include "delivery/reply_target.hpp"
#include "delivery/server_call.hpp"
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

namespace {

// R-X2: one decline through the outbox. The reason is the agent's own note: logged here, never sent.
void decline(Bridge& bridge, const AttachmentRow& row, const std::string& message_id, const std::string& id,
             const std::optional<std::string>& reason, const Reply& reply) {
  const json body = {{"delivery", "processed"}, {"reply_state", "no_reply"}, {"via", "agent"}};
  const std::string path = "/v1/messages/" + message_id + "/receipt";
  if (answer_repeated(bridge, "ack", path, body, id, reply)) return;
  log::info(row.agent_name + " declined to answer " + message_id + (reason ? ": " + echo_typed(*reason, 500) : ""));
  bridge.journal().set_delivery(message_id, MessageState::processed, Bridge::now());
  bridge.journal().settle_message(message_id, Bridge::now());
  bridge.outbox().submit(row.attachment_id, "ack", path, body, id, reply);
}

// The messages an earlier address-less decline with submission id `base` journaled (`base.1`, `base.2`, …).
std::vector<std::string> declined_under(Bridge& bridge, const std::string& base) {
  std::vector<std::string> out;
  sql::Stmt s(bridge.journal().db(), "SELECT path FROM outbox WHERE submission_id = ?1 AND kind = 'ack'");
  const std::string prefix = "/v1/messages/";
  const std::string suffix = "/receipt";
  for (std::size_t n = 1; n <= 100; ++n) {
    s.bind(1, base + "." + std::to_string(n));
    if (!s.step()) break;
    const std::string path = s.text(0);
    s.reset();
    if (path.size() > prefix.size() + suffix.size())
      out.push_back(path.substr(prefix.size(), path.size() - prefix.size() - suffix.size()));
  }
  return out;
}

// Declines ids[i..] one after another (each its own submission, `base.N`), then answers the list.
void decline_all(Bridge& bridge, const AttachmentRow& row, std::shared_ptr<const std::vector<std::string>> ids,
                 std::size_t i, const std::string& base, const std::optional<std::string>& reason,
                 std::shared_ptr<json> answers, const Reply& reply) {
  const std::string message_id = (*ids)[i];
  decline(bridge, row, message_id, base + "." + std::to_string(i + 1), reason,
          reply.then([&bridge, row, ids, i, base, reason, answers, reply, message_id](const json& fields) {
            answers->push_back({{"message_id", message_id}, {"state", fields.value("state", "")}});
            if (i + 1 < ids->size()) {
              decline_all(bridge, row, ids, i + 1, base, reason, answers, reply);
              return;
            }
            bool all_sent = true;
            for (const json& a : *answers) all_sent = all_sent && a.value("state", "") == "sent";
            reply.ok({{"state", all_sent ? "sent" : "queued"}, {"declined", *answers}});
          }));
}

}  // namespace

// Without message_id: every message handed to this chat that it has not yet marked processed (R-X2).
void op_no_reply(Bridge& bridge, const json& req, const Reply& reply, const AttachmentRow* session) {
  const AttachmentRow row = *session;  // resolved by dispatch() (claims_session)
  const auto message_id = optional_string(req, "message_id", 200);
  const auto reason = optional_string(req, "reason", 4 * kMaxNoReplyReasonChars);
  if (reason && (!utf8_length(*reason) || *utf8_length(*reason) > kMaxNoReplyReasonChars))
    throw Error(ErrorCode::bad_request, "reason must be valid UTF-8 of at most 500 characters");
  const auto id = submission_id(req);
  if (message_id && !message_id->empty()) {
    decline(bridge, row, *message_id, id, reason, reply);
    return;
  }
  auto ids = std::make_shared<std::vector<std::string>>(declined_under(bridge, id));
  // A retry of the same request declines (and answers) what the first one did; else what waits for an answer now.
  if (ids->empty())
    for (const auto& offer : bridge.journal().open_offers(row.attachment_id)) ids->push_back(offer.message_id);
  if (ids->empty())
    throw Error(ErrorCode::bad_request, "no message handed to this chat is waiting for an answer; give message_id "
                                        "(agent_message_read lists your mailbox)");
  decline_all(bridge, row, ids, 0, id, reason, std::make_shared<json>(json::array()), reply);
}

void op_reply(Bridge& bridge, const json& req, const Reply& reply, const AttachmentRow* session) {
  const AttachmentRow row = *session;  // resolved by dispatch() (claims_session)
  const auto text = message_text(req);
  const auto id = submission_id(req);
  auto submit = [&bridge, row, text, id, reply](const std::string& inbox_id) {
    const json body = {{"inbox_id", inbox_id}, {"message", text}, {"agent_name", row.agent_name}, {"submission_id", id}};
    bridge.journal().settle_conversation(row.attachment_id, inbox_id, Bridge::now());  // R-X4: answered
    submit_once(bridge, row, "reply", "/v1/messages", body, id, reply);
  };
  if (const auto inbox_id = optional_string(req, "inbox_id", 200); inbox_id && !inbox_id->empty()) {
    submit(*inbox_id);
    return;
  }
  // By message id: the conversation of a message this chat received (R-C5); retired ids need the inbox (R-B13).
  const auto message_id = optional_string(req, "message_id", 200);
  if (message_id && !message_id->empty()) {
    find_reply_inbox(bridge, row, *message_id, reply, submit);
    return;
  }
  // R-X4: no address: the one conversation of the messages this chat took and has not marked processed.
  std::vector<std::string> inboxes;
  std::string listed;
  for (const auto& offer : bridge.journal().open_offers(row.attachment_id)) {
    if (std::find(inboxes.begin(), inboxes.end(), offer.inbox_id) == inboxes.end()) inboxes.push_back(offer.inbox_id);
    listed += (listed.empty() ? "" : ", ") + offer.message_id + " (inbox " + offer.inbox_id + ")";
  }
  if (inboxes.empty())
    throw Error(ErrorCode::bad_request, "no message handed to this chat is waiting for an answer; give message_id or "
                                        "inbox_id (agent_message_read lists your mailbox)");
  if (inboxes.size() > 1)
    throw Error(ErrorCode::bad_request, "the messages this chat took came in " + std::to_string(inboxes.size()) +
                                            " conversations: " + listed + "; choose one with message_id or inbox_id");
  submit(inboxes.front());
}

void op_send(Bridge& bridge, const json& req, const Reply& reply, const AttachmentRow* session) {
  const AttachmentRow row = *session;  // resolved by dispatch() (claims_session)
  const auto target = required_string(req, "target", 256);
  if (!valid_message_target(target)) {
    throw Error(ErrorCode::bad_request, "target must be \"agent:NAME\" or \"crew:NAME\" with a valid name");
  }
  const auto id = submission_id(req);
  const json body = {
      {"target", target}, {"message", message_text(req)}, {"agent_name", row.agent_name}, {"submission_id", id}};
  submit_once(bridge, row, "send", "/v1/messages", body, id, reply);
}

}  // namespace agentworks::bridge
