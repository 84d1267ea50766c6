// deliver: `take` for a Stop hook (docs/protocol.md "Hook ops"). The bridge builds the text (delivery_text.hpp),
// offers only the oldest-first prefix that fits the hook's output budget, and applies the loop guard (R-H2).
// An unknown session is answered from the journal alone: no network (R-H9).
#include <algorithm>
#include <memory>

#include <nlohmann/json.hpp>

#include "agentworks/delivery_budget.hpp"
#include "bridge.hpp"
#include "delivery/delivery_batch.hpp"
#include "delivery/delivery_notices.hpp"
#include "delivery/offer_flow.hpp"
#include "delivery/op_guard.hpp"
#include "identity/name_holder.hpp"
#include "ops/offer_answer.hpp"
#include "ops/ops.hpp"
#include "platform/log.hpp"
#include "request/request_fields.hpp"

namespace agentworks::bridge {

using nlohmann::json;

namespace {

constexpr int kMaxDeliver = 20;
constexpr std::int64_t kDefaultContinuations = 3;
constexpr std::int64_t kMaxContinuations = 8;
constexpr auto kDefaultChars = static_cast<std::int64_t>(kDeliveryBudgetUnits);
constexpr std::int64_t kMaxChars = 100000;

json quiet_answer(Bridge& bridge, const AttachmentRow& row, std::size_t held, bool guarded) {
  return {{"attached", true},
          {"state", std::string(to_string(row.state))},
          {"agent_name", row.agent_name},
          {"attachment_id", row.attachment_id},
          {"text", ""},
          {"message_ids", json::array()},
          {"guidance", false},
          {"pending", bridge.journal().counts(row.attachment_id).pending},
          {"held", held},
          {"held_back", bridge.held_back().count(row.attachment_id)},
          {"possibly_lost", json::array()},
          {"guarded", guarded}};
}

// R-B6: nothing is waiting, but earlier offers may not have arrived: the chat is told once, by a text of the
// notice alone.
bool deliver_notice_only(Bridge& bridge, const SessionKey& key, const AttachmentRow& row, std::int64_t max_chars,
                         const Reply& reply) {
  const auto notices = notices_for(bridge, row);
  if (notices.possibly_lost_total == 0) return false;
  DeliveryContext ctx{row.agent_name, row.attachment_id, row.provider, false, static_cast<std::size_t>(max_chars),
                      0, notices};
  const auto text = format_delivery({}, ctx);
  if (text.text.empty()) return false;
  bridge.hook_state().count_delivery(key);
  json out = quiet_answer(bridge, row, 0, false);
  out["text"] = text.text;
  out["possibly_lost"] = text.lost_listed;
  reply.ok(out, [&bridge, listed = text.lost_listed, attachment_id = row.attachment_id](bool written) {
    if (written) bridge.guard_journal("after a notice", [&] { lost_offers_told(bridge, attachment_id, listed); });
  });
  return true;
}

// The waiting messages that fit, as the text that continues the turn (or the notices alone, or nothing).
void offer_waiting(Bridge& bridge, const SessionKey& key, const AttachmentRow& att, std::int64_t max_chars,
                   const Reply& reply) {
  auto pending = bridge.journal().pending(att.attachment_id, kMaxDeliver);
  if (pending.empty()) {
    if (!deliver_notice_only(bridge, key, att, max_chars, reply)) reply.ok(quiet_answer(bridge, att, 0, false));
    return;
  }
  const auto token = bridge.token_for(att);
  if (!token) {
    reply.ok(quiet_answer(bridge, att, pending.size(), false));
    return;
  }

  OfferAnswer answer;
  // The notices as they are now; the text that reaches the chat marks its listed offers as told.
  const auto notices = notices_for(bridge, att);
  auto listed = std::make_shared<std::vector<std::string>>();
  OfferSelect select = [&bridge, att, max_chars, notices](const std::vector<CachedMessage>& releasable,
                                                           bool guidance) {
    return fitting_prefix(bridge.journal(), att, releasable, guidance, max_chars, notices);
  };
  answer.offered = [&bridge, key, max_chars, notices, listed](const AttachmentRow& r, const OfferBatch& batch) {
    const auto [text, still_pending] = offered_text(bridge, r, batch, max_chars, notices);
    *listed = text.lost_listed;
    json ids = json::array();
    for (std::size_t i = 0; i < text.included; ++i) ids.push_back(batch.messages[i].message_id);
    if (!text.text.empty()) bridge.hook_state().count_delivery(key);
    return json{{"attached", true},
                {"state", std::string(to_string(r.state))},
                {"agent_name", r.agent_name},
                {"attachment_id", r.attachment_id},
                {"text", text.text},
                {"message_ids", ids},
                {"guidance", batch.guidance && !text.text.empty()},
                {"truncated", text.truncated},
                {"pending", still_pending},
                {"held", 0},
                {"held_back", notices.held_back},
                {"possibly_lost", *listed},
                {"guarded", false}};
  };
  answer.written = [&bridge, listed, attachment_id = att.attachment_id](bool written) {
    if (written) lost_offers_told(bridge, attachment_id, *listed);
  };
  answer.held = [&bridge](const AttachmentRow& r, std::size_t held) { return quiet_answer(bridge, r, held, false); };
  release_and_offer(bridge, att, *token, std::move(pending), std::move(select),
                    answer_offer(bridge, reply, std::move(answer)));
}

}  // namespace

void op_deliver(Bridge& bridge, const json& req, const Reply& reply, const AttachmentRow*) {
  const auto key = session_key(req);
  const bool stop_hook_active = optional_bool(req, "stop_hook_active", false);
  std::optional<std::int64_t> loop_count;
  if (req.contains("loop_count") && !req["loop_count"].is_null()) {
    loop_count = optional_int(req, "loop_count", 0, 0, 1'000'000);
  }
  const auto max_continuations =
      optional_int(req, "max_continuations", kDefaultContinuations, 0, kMaxContinuations);
  const auto max_chars =
      optional_int(req, "max_chars", kDefaultChars, static_cast<std::int64_t>(kMinDeliveryBudget), kMaxChars);

  const auto row = bridge.journal().find_attachment(key.provider, key.session_id);
  if (!row) {
    reply.ok({{"attached", false}});  // R-H9: the unattached fast path, no network
    return;
  }
  if (row->state != AttachmentState::attached) {
    json out = quiet_answer(bridge, *row, 0, false);  // offline or fenced: nothing is delivered here
    // R-H7: the first turn end after another chat took the name tells the person (not the model) who did.
    if (const auto loss = bridge.journal().name_loss(row->attachment_id); loss && !loss->told) {
      out["notice"] = name_loss_sentence(*row, *loss);
      bridge.journal().name_loss_told(row->attachment_id);
    }
    reply.ok(out);
    return;
  }
  // R-X3: a Stop the bridge does not continue ends the chat's turn; offers queued behind it start the next one.
  reply.observe([&bridge, attachment_id = row->attachment_id](const json* fields) {
    if (fields != nullptr && fields->is_object() && !fields->value("text", std::string()).empty()) return;
    bridge.chat_turns().ended(attachment_id);
    bridge.guard_journal("at a turn's end", [&] {
      if (bridge.journal().end_turn(attachment_id)) bridge.chat_turns().started(attachment_id);
    });
  });
  // R-H2: at most max_continuations deliveries in one chain of stops; the rest waits for the next turn.
  const bool may_continue = bridge.hook_state().chain_length(key, stop_hook_active, loop_count) < max_continuations;
  TurnEnd end;
  end.may_continue = may_continue;
  if (const auto it = req.find("last_assistant_message"); it != req.end() && it->is_string()) {
    end.final_text = it->get<std::string>();
  } else {
    end.final_text_too_long = optional_bool(req, "last_assistant_message_too_long", false);
  }
  // R-X5, R-X3 before this stop offers anything new: the turn's own messages first.
  const AttachmentRow att = *row;
  end_of_turn(bridge, att, end, [&bridge, key, att, may_continue, max_chars, reply](const std::string& nudge) {
    guarded(bridge, reply, [&] {
      if (!nudge.empty()) {
        bridge.hook_state().count_delivery(key);
        json out = quiet_answer(bridge, att, 0, false);
        out["text"] = nudge;
        reply.ok(out);
        return;
      }
      if (!may_continue) {
        reply.ok(quiet_answer(bridge, att, 0, true));
        return;
      }
      offer_waiting(bridge, key, att, max_chars, reply);
    });
  });
}

void op_turn_start(Bridge& bridge, const json& req, const Reply& reply, const AttachmentRow*) {
  const auto key = session_key(req);
  const auto row = bridge.journal().find_attachment(key.provider, key.session_id);
  const bool attached = row && row->state == AttachmentState::attached;
  if (attached) {
    bridge.journal().start_turn(row->attachment_id);
    bridge.chat_turns().started(row->attachment_id);
  }
  reply.ok({{"attached", attached}});
}

}  // namespace agentworks::bridge
