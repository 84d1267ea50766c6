#include "delivery/offer_flow.hpp"

#include <memory>
#include <optional>
#include <utility>

#include <nlohmann/json.hpp>

#include "delivery/op_guard.hpp"
#include "delivery/server_call.hpp"
#include "platform/failpoint.hpp"
#include "platform/log.hpp"
#include "services/clock.hpp"
#include "services/delivery_services.hpp"
#include "state/chat_turns.hpp"

namespace agentworks::bridge {

using nlohmann::json;

namespace {

struct OfferState {
  std::string attachment_id;
  bool pushed = false;
  std::vector<CachedMessage> pending;
  OfferSelect select;
  OfferDone done;
};

OfferOutcome held_outcome(const AttachmentRow& row, std::size_t held) {
  OfferOutcome out;
  out.kind = OfferOutcome::Kind::held;
  out.row = row;
  out.held = held;
  return out;
}

OfferOutcome hand_out(DeliveryServices& bridge, const OfferState& st, const std::vector<std::string>& released) {
  auto row = bridge.journal().attachment(st.attachment_id);
  if (!row || row->state != AttachmentState::attached) {
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
  const auto now = unix_now();
  std::vector<std::string> chosen;
  if (st.select) {
    chosen = st.select(releasable, bridge.journal().guidance_due(st.attachment_id, now));
  } else {
    for (const auto& m : releasable) chosen.push_back(m.message_id);
  }
  // R-X3: a push wakes an idle chat into a new turn; into a busy one it queues behind the turn under way.
  const bool busy = bridge.chat_turns().busy(st.attachment_id);
  const OfferSeen seen = !st.pushed ? OfferSeen::this_turn : busy ? OfferSeen::next_turn : OfferSeen::a_new_turn;
  OfferOutcome out;
  out.kind = OfferOutcome::Kind::offered;
  out.batch = bridge.journal().offer(st.attachment_id, chosen, seen, now);
  if (st.pushed && !out.batch.messages.empty()) bridge.chat_turns().started(st.attachment_id);
  out.row = std::move(*row);
  if (!out.batch.messages.empty()) bridge.room_freed();  // offered rows are reclaimable: held-back ones may fit now
  AGENTWORKS_FAILPOINT("bridge.after_offer_commit");
  return out;
}

}  // namespace

std::vector<std::string> OfferOutcome::offered_ids() const {
  std::vector<std::string> ids;
  ids.reserve(batch.messages.size());
  for (const auto& m : batch.messages) ids.push_back(m.message_id);
  return ids;
}

void settle_offers(DeliveryServices& bridge, const std::vector<std::string>& message_ids, bool emitted) {
  if (message_ids.empty()) return;
  bridge.guard_journal("while settling offers", [&] {
    bridge.journal().settle_offers(message_ids, emitted);
    if (!emitted) {
      log::warn(std::to_string(message_ids.size()) +
                " offered messages may not have reached their chat; its next "
                "delivery lists them");
    }
  });
}

void lost_offers_told(DeliveryServices& bridge, const std::string& attachment_id,
                      const std::vector<std::string>& message_ids) {
  if (message_ids.empty()) return;
  bridge.journal().possibly_lost_told(message_ids);
  const auto row = bridge.journal().attachment(attachment_id);
  const auto token = row ? bridge.token_for(*row) : std::nullopt;
  if (!row || !token) return;
  call_server(bridge, "POST", row->server_url, "/v1/attachments/" + attachment_id + "/interrupted", *token,
              {{"message_ids", message_ids}}, [count = message_ids.size()](const ServerAnswer& a) {
                if (a.error != nullptr)
                  log::warn("could not report " + std::to_string(count) +
                            " offers that may not have arrived (a wakeup among them keeps reading offered): " +
                            a.error->what());
              });
}

void offer_not_carried(DeliveryServices& bridge, const OfferOutcome& outcome) {
  if (outcome.batch.guidance) {
    bridge.journal().restore_guidance(outcome.row.attachment_id, outcome.batch.previous_guidance);
  }
  bridge.journal().settle_offers(outcome.offered_ids(), false);
}

void release_and_offer(DeliveryServices& bridge, const AttachmentRow& row, const std::string& token,
                       std::vector<CachedMessage> pending, OfferSelect select, OfferDone done, bool pushed) {
  json ids = json::array();
  for (const auto& m : pending) ids.push_back(m.message_id);
  auto st = std::make_shared<OfferState>(
      OfferState{row.attachment_id, pushed, std::move(pending), std::move(select), std::move(done)});
  const AttachmentRow held_row = row;
  // Invariant 4: the server rechecks attachment, sender authority and retention before anything is released.
  call_server(
      bridge, "POST", row.server_url, "/v1/attachments/" + row.attachment_id + "/release-check", token,
      {{"message_ids", ids}},
      [&bridge, st, held_row](const ServerAnswer& a) {
        std::optional<OfferOutcome> outcome;
        guarded_to(
            bridge,
            [&outcome](ErrorCode code, const std::string& message) {
              OfferOutcome failed;
              failed.code = code;
              failed.message = message;
              outcome = std::move(failed);
            },
            [&] {
              if (a.error != nullptr) {
                const auto code = a.error->code();
                if (code == ErrorCode::unauthenticated || code == ErrorCode::forbidden ||
                    code == ErrorCode::fenced || code == ErrorCode::not_found) {
                  bridge.fence(st->attachment_id, std::string("release check refused: ") + a.error->what());
                  throw Error(ErrorCode::fenced, "this attachment is no longer current; nothing is delivered");
                }
                log::warn(std::string("release check failed, holding messages: ") + a.error->what());
                outcome = held_outcome(held_row, st->pending.size());
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
              outcome = hand_out(bridge, *st, releasable);
            });
        if (outcome && st->done) st->done(std::move(*outcome));
      },
      5000);
}

}  // namespace agentworks::bridge
