// take: the Stop hook's request for waiting messages (R-H1). Order matters (invariants 1 and 4):
// release check with the server -> offered persisted (one transaction) -> answer. If the server cannot be asked,
// the messages are held.
#include <nlohmann/json.hpp>

#include "bridge.hpp"
#include "failpoint.hpp"
#include "log.hpp"
#include "op_guard.hpp"
#include "ops.hpp"
#include "request_fields.hpp"
#include "server_call.hpp"

namespace agentworks::bridge {

using nlohmann::json;

namespace {

constexpr int kMaxTake = 20;

json attachment_meta(const AttachmentRow& row) {
  return {{"attachment_id", row.attachment_id}, {"agent_name", row.agent_name}, {"provider", row.provider},
          {"session_id", row.session_id}};
}

void hand_out(Bridge& bridge, const Reply& reply, const std::string& attachment_id,
              const std::vector<std::string>& releasable, std::size_t held) {
  const auto row = bridge.journal().attachment(attachment_id);
  if (!row || row->state != "attached") {
    throw Error(ErrorCode::fenced, "this session's attachment stopped while its messages were checked");
  }
  const auto batch = bridge.journal().offer(attachment_id, releasable, Bridge::now());
  AGENTWORKS_FAILPOINT("bridge.after_offer_commit");
  json answer;
  try {
    json messages = json::array();
    for (const auto& m : batch.messages) {
      json body = json::parse(m.body, nullptr, false);
      if (!body.is_object()) body = json::object({{"message_id", m.message_id}});
      messages.push_back(std::move(body));
    }
    answer = {{"messages", messages}, {"guidance", batch.guidance}, {"held", held},
              {"attachment", attachment_meta(*row)}};
  } catch (...) {
    // R-B17: a definite failure before delivery (the answer could not be built, so nothing reached the chat)
    // restores the previous guidance timestamp, so the next offer still carries the instructions. The messages
    // stay offered (invariant 1). Once the answer is being written the outcome is ambiguous: keep the timestamp.
    if (batch.guidance) bridge.journal().restore_guidance(attachment_id, batch.previous_guidance);
    throw;
  }
  AGENTWORKS_FAILPOINT("bridge.before_take_reply");
  reply.ok(answer);
}

}  // namespace

void op_take(Bridge& bridge, const json& req, const Reply& reply) {
  const auto key = session_key(req);
  const auto limit = static_cast<int>(optional_int(req, "limit", kMaxTake, 1, kMaxTake));
  const auto row = bridge.journal().find_attachment(key.provider, key.session_id);
  if (!row) throw Error(ErrorCode::not_found, "this session is not attached");
  if (row->state == "fenced") {
    throw Error(ErrorCode::fenced, "this attachment was superseded, detached or revoked; nothing is delivered");
  }
  const auto empty_answer = [&](std::size_t held) {
    reply.ok({{"messages", json::array()}, {"guidance", false}, {"held", held}, {"attachment", attachment_meta(*row)},
              {"state", row->state}});
  };
  if (row->state != "attached") {
    empty_answer(0);  // offline: messages wait
    return;
  }
  const auto pending = bridge.journal().pending(row->attachment_id, limit);
  if (pending.empty()) {
    empty_answer(0);
    return;
  }
  const auto token = bridge.token_for(*row);
  if (!token) {
    empty_answer(pending.size());
    return;
  }
  json ids = json::array();
  for (const auto& m : pending) ids.push_back(m.message_id);
  const std::string attachment_id = row->attachment_id;
  const std::size_t count = pending.size();
  // Invariant 4: the server rechecks attachment, sender authority and retention before anything is released.
  call_server(
      bridge, "POST", row->server_url, "/v1/attachments/" + attachment_id + "/release-check", *token,
      {{"message_ids", ids}},
      [&bridge, reply, attachment_id, count, row](const ServerAnswer& a) {
        guarded(bridge, reply, [&] {
          if (a.error != nullptr) {
            const auto code = a.error->code();
            if (code == ErrorCode::unauthenticated || code == ErrorCode::forbidden || code == ErrorCode::fenced ||
                code == ErrorCode::not_found) {
              bridge.fence(attachment_id, std::string("release check refused: ") + a.error->what());
              throw Error(ErrorCode::fenced, "this attachment is no longer current; nothing is delivered");
            }
            log::warn(std::string("release check failed, holding messages: ") + a.error->what());
            reply.ok({{"messages", json::array()}, {"guidance", false}, {"held", count},
                      {"attachment", attachment_meta(*row)}});
            return;
          }
          const json& body = *a.body;
          if (!body.value("attachment_current", false)) {
            bridge.fence(attachment_id, "release check: attachment not current");
            throw Error(ErrorCode::fenced, "this attachment is no longer current; nothing is delivered");
          }
          std::vector<std::string> releasable;
          std::vector<std::string> refused;
          std::string refusal;
          if (body.contains("messages") && body["messages"].is_array()) {
            for (const auto& m : body["messages"]) {
              if (!m.is_object() || !m.contains("message_id") || !m["message_id"].is_string()) continue;
              if (m.value("releasable", false)) {
                releasable.push_back(m["message_id"].get<std::string>());
              } else {
                refused.push_back(m["message_id"].get<std::string>());
                if (m.contains("reason") && m["reason"].is_string()) refusal = m["reason"].get<std::string>();
              }
            }
          }
          if (!refused.empty()) bridge.journal().withhold(refused, refusal.empty() ? "refused" : refusal);
          hand_out(bridge, reply, attachment_id, releasable, 0);
        });
      },
      5000);
}

}  // namespace agentworks::bridge
