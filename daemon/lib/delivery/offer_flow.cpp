#include "delivery/offer_flow.hpp"

#include <memory>

#include <nlohmann/json.hpp>

#include "bridge.hpp"
#include "delivery/op_guard.hpp"
#include "delivery/server_call.hpp"
#include "platform/failpoint.hpp"
#include "platform/log.hpp"

namespace agentworks::bridge {

using nlohmann::json;

namespace {

struct OfferState {
  std::string attachment_id;
  std::vector<CachedMessage> pending;
  OfferHandlers handlers;
};

void hand_out(Bridge& bridge, const Reply& reply, const OfferState& st, const std::vector<std::string>& released) {
  const auto row = bridge.journal().attachment(st.attachment_id);
  if (!row || row->state != "attached") {
    throw Error(ErrorCode::fenced, "this session's attachment stopped while its messages were checked");
  }
  std::vector<CachedMessage> releasable;  // in the journal's (oldest first) order, whatever the server's order
  for (const auto& m : st.pending) {
    for (const auto& id : released) {
      if (id == m.message_id) {
        releasable.push_back(m);
        break;
      }
    }
  }
  // One clock reading: the guidance the selection planned for is the guidance offer() decides.
  const auto now = Bridge::now();
  std::vector<std::string> chosen;
  if (st.handlers.select) {
    chosen = st.handlers.select(releasable, bridge.journal().guidance_due(st.attachment_id, now));
  } else {
    for (const auto& m : releasable) chosen.push_back(m.message_id);
  }
  const auto batch = bridge.journal().offer(st.attachment_id, chosen, now);
  std::vector<std::string> offered;
  for (const auto& m : batch.messages) offered.push_back(m.message_id);
  if (!offered.empty()) bridge.room_freed();  // offered rows are reclaimable: held-back messages may fit now
  AGENTWORKS_FAILPOINT("bridge.after_offer_commit");
  json answer;
  try {
    answer = st.handlers.answer(*row, batch);
  } catch (...) {
    // R-B17: the answer could not be built, so nothing reached the chat: the next offer still carries the
    // instructions. Once the answer is being written the outcome is ambiguous: keep the timestamp.
    if (batch.guidance) bridge.journal().restore_guidance(st.attachment_id, batch.previous_guidance);
    // Issue 12.7: they stay offered (invariant 1); the chat's next delivery says so.
    bridge.journal().settle_offers(offered, false);
    throw;
  }
  AGENTWORKS_FAILPOINT("bridge.before_take_reply");
  if (!st.handlers.answer_delivers) {
    reply.ok(answer);
    return;
  }
  reply.ok(answer, [&bridge, offered, after = st.handlers.written](bool written) {
    settle_offers(bridge, offered, written);
    if (!after) return;
    try {
      after(written);
    } catch (const sql::SqliteError& e) {
      if (e.fatal()) bridge.fatal(std::string("journal failure after an answer: ") + e.what());
      log::error(std::string("journal error after an answer: ") + e.what());
    }
  });
}

}  // namespace

void settle_offers(Bridge& bridge, const std::vector<std::string>& message_ids, bool emitted) {
  if (message_ids.empty()) return;
  try {
    bridge.journal().settle_offers(message_ids, emitted);
    if (!emitted) {
      log::warn(std::to_string(message_ids.size()) +
                " offered messages may not have reached their chat; its next "
                "delivery lists them");
    }
  } catch (const sql::SqliteError& e) {
    if (e.fatal()) bridge.fatal(std::string("journal failure while settling offers: ") + e.what());
    log::error(std::string("journal error while settling offers: ") + e.what());
  }
}

void release_and_offer(Bridge& bridge, const Reply& reply, const AttachmentRow& row, const std::string& token,
                       std::vector<CachedMessage> pending, OfferHandlers handlers) {
  json ids = json::array();
  for (const auto& m : pending) ids.push_back(m.message_id);
  auto st = std::make_shared<OfferState>(OfferState{row.attachment_id, std::move(pending), std::move(handlers)});
  const AttachmentRow held_row = row;
  // Invariant 4: the server rechecks attachment, sender authority and retention before anything is released.
  call_server(
      bridge, "POST", row.server_url, "/v1/attachments/" + row.attachment_id + "/release-check", token,
      {{"message_ids", ids}},
      [&bridge, reply, st, held_row](const ServerAnswer& a) {
        guarded(bridge, reply, [&] {
          if (a.error != nullptr) {
            const auto code = a.error->code();
            if (code == ErrorCode::unauthenticated || code == ErrorCode::forbidden || code == ErrorCode::fenced ||
                code == ErrorCode::not_found) {
              bridge.fence(st->attachment_id, std::string("release check refused: ") + a.error->what());
              throw Error(ErrorCode::fenced, "this attachment is no longer current; nothing is delivered");
            }
            log::warn(std::string("release check failed, holding messages: ") + a.error->what());
            reply.ok(st->handlers.held(held_row, st->pending.size()));
            return;
          }
          const json& body = *a.body;
          if (!body.value("attachment_current", false)) {
            bridge.fence(st->attachment_id, "release check: attachment not current");
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
          hand_out(bridge, reply, *st, releasable);
        });
      },
      5000);
}

}  // namespace agentworks::bridge
