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
  // R-X5: before this stop offers anything new. A text the hook found too long is never cut to fit.
  if (const auto it = req.find("last_assistant_message"); it != req.end() && it->is_string()) {
    reply_with_final_text(bridge, *row, it->get<std::string>());
  } else if (optional_bool(req, "last_assistant_message_too_long", false)) {
    reply_with_final_text(bridge, *row, std::nullopt);
  }
  // R-H2: at most max_continuations deliveries in one chain of stops; the rest waits for the next turn.
  if (bridge.hook_state().chain_length(key, stop_hook_active, loop_count) >= max_continuations) {
    reply.ok(quiet_answer(bridge, *row, 0, true));
    return;
  }
  auto pending = bridge.journal().pending(row->attachment_id, kMaxDeliver);
  if (pending.empty()) {
    if (!deliver_notice_only(bridge, key, *row, max_chars, reply)) reply.ok(quiet_answer(bridge, *row, 0, false));
    return;
  }
  const auto token = bridge.token_for(*row);
  if (!token) {
    reply.ok(quiet_answer(bridge, *row, pending.size(), false));
    return;
  }

  OfferAnswer answer;
  const AttachmentRow att = *row;
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
  answer.written = [&bridge, listed, attachment_id = row->attachment_id](bool written) {
    if (written) lost_offers_told(bridge, attachment_id, *listed);
  };
  answer.held = [&bridge](const AttachmentRow& r, std::size_t held) { return quiet_answer(bridge, r, held, false); };
  release_and_offer(bridge, *row, *token, std::move(pending), std::move(select),
                    answer_offer(bridge, reply, std::move(answer)));
}

}  // namespace agentworks::bridge
