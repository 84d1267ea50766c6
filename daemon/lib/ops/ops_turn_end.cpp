// A Stop of an attached chat: what the turn that ends did with the messages it was handed (R-X3, R-X5). The
// person's choices (direct or explicit, nudge on or off) are the server's, asked once per such Stop.
#include <algorithm>
#include <memory>

#include <nlohmann/json.hpp>

#include "agentworks/sha256.hpp"
#include "agentworks/validation.hpp"
#include "bridge.hpp"
#include "delivery/delivery_text.hpp"
#include "delivery/server_call.hpp"
#include "ops/ops.hpp"
#include "platform/log.hpp"

namespace agentworks::bridge {

using nlohmann::json;

namespace {

// A reply whose only reader is the bridge's log (the chat's turn is over).
Reply logged(const std::string& what) {
  return Reply(std::make_shared<const json>(nullptr), [what](std::string line) {
    log::info(what + ": " + line.substr(0, 200));
  });
}

std::vector<std::string> conversations_of(const std::vector<SilentOffer>& offers) {
  std::vector<std::string> inboxes;
  for (const auto& o : offers)
    if (std::find(inboxes.begin(), inboxes.end(), o.inbox_id) == inboxes.end()) inboxes.push_back(o.inbox_id);
  return inboxes;
}

// R-X5: the final text of a direct agent as its reply to the one conversation the turn was handed; true when sent
// (or already sent by an earlier Stop of the same turn).
bool reply_with_final_text(Bridge& bridge, const AttachmentRow& row, const TurnEnd& end,
                           const std::vector<SilentOffer>& silent) {
  if (end.final_text && blank_text(*end.final_text)) return false;  // an empty final text is a silent turn
  if (!end.final_text && !end.final_text_too_long) return false;
  const auto inboxes = conversations_of(silent);
  if (inboxes.size() > 1) {
    const std::string why = "direct, but its last turn took messages from " + std::to_string(inboxes.size()) +
                            " conversations: its final text stayed private (it replies with the tools)";
    log::info(row.agent_name + " is " + why);
    bridge.chat_turns().note(row.attachment_id, why, Bridge::now());
    return false;
  }
  if (!end.final_text || !valid_message_text(*end.final_text)) {
    log::warn(row.agent_name + ": the final text was not sent as a reply: over 20,000 characters");
    return false;
  }
  // One reply per (chat, conversation, last message handed): a repeated Stop hook answers the same submission.
  const std::string id =
      "direct-" + sha256_hex(row.attachment_id + "\n" + inboxes.front() + "\n" + silent.back().message_id).substr(0, 32);
  const json body = {{"inbox_id", inboxes.front()}, {"message", *end.final_text},
                     {"agent_name", row.agent_name}, {"submission_id", id}};
  bridge.journal().settle_conversation(row.attachment_id, inboxes.front(), Bridge::now());
  try {
    submit_once(bridge, row, "reply", "/v1/messages", body, id, logged(row.agent_name + ": the final text went as the reply (" + id + ")"));
  } catch (const Error& e) {
    log::warn(row.agent_name + ": the final text was not sent as a reply: " + e.what());
  }
  return true;
}

// R-X3: the sender's receipt reads `unanswered` (the server adds its status line); the chat is not asked again.
void mark_unanswered(Bridge& bridge, const AttachmentRow& row, const std::string& message_id) {
  const json body = {{"delivery", "admitted"}, {"reply_state", "unanswered"}};
  const std::string id = "unanswered-" + message_id;  // a repeated Stop answers the recorded submission
  bridge.journal().settle_message(message_id, Bridge::now());
  log::info(row.agent_name + " ended its turn without answering " + message_id);
  try {
    submit_once(bridge, row, "ack", "/v1/messages/" + message_id + "/receipt", body, id,
                logged(row.agent_name + ": " + message_id + " reads unanswered"));
  } catch (const Error& e) {
    log::warn(row.agent_name + ": " + message_id + " could not be marked unanswered: " + e.what());
  }
}

// With the agent's settings read: the direct reply, then the nudge or the unanswered receipts.
std::string settle_turn(Bridge& bridge, const AttachmentRow& row, const TurnEnd& end, const json& agent) {
  auto silent = bridge.journal().silent_offers(row.attachment_id);
  if (silent.empty()) return {};
  if (agent.value("communication", std::string("explicit")) == "direct" &&
      reply_with_final_text(bridge, row, end, silent)) {
    silent = bridge.journal().silent_offers(row.attachment_id);
  }
  const bool nudge = agent.value("nudge", std::string("on")) == "on";
  std::vector<std::string> ask;
  for (const auto& offer : silent) {
    if (!offer.nudged && nudge && end.may_continue) {
      ask.push_back(offer.message_id);
    } else {
      mark_unanswered(bridge, row, offer.message_id);  // asked before, not to be asked, or no room left to ask
    }
  }
  if (ask.empty()) return {};
  bridge.journal().mark_nudged(ask, Bridge::now());
  DeliveryContext ctx{row.agent_name, row.attachment_id, row.provider};
  return silent_turn_nudge(ask, ctx);
}

}  // namespace

void end_of_turn(Bridge& bridge, const AttachmentRow& row, const TurnEnd& end,
                 std::function<void(const std::string& nudge)> then) {
  if (bridge.journal().silent_offers(row.attachment_id).empty()) {
    then({});
    return;
  }
  const auto token = bridge.token_for(row);
  if (!token) {
    then({});
    return;
  }
  // In any doubt (the server cannot say how the agent talks) nothing is sent, asked or marked this Stop.
  call_server(
      bridge, "GET", row.server_url, "/v1/agents/" + row.agent_name, *token, nullptr,
      [&bridge, row, end, then](const ServerAnswer& a) {
        if (a.error != nullptr) {
          log::warn(row.agent_name + ": its turn's unanswered messages wait: how it talks could not be read (" +
                    a.error->what() + ")");
          then({});
          return;
        }
        std::string nudge;
        bridge.guard_journal("at a turn's end", [&] { nudge = settle_turn(bridge, row, end, *a.body); });
        then(nudge);
      },
      kTurnEndTimeoutMs);
}

}  // namespace agentworks::bridge
