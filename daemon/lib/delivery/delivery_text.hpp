// The text that hands waiting messages to a chat (R-H3, R-B17, R-B18): one pure formatter shared by the hook's
// `deliver` op and the native push routes. No I/O. Lengths are UTF-16 code units, the unit the CLIs cap
// hook output in (a code point >= U+10000 counts 2).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "agentworks/delivery_budget.hpp"

namespace agentworks::bridge {

// The fields of the server's Message object that the text shows.
struct DeliveryMessage {
  std::string message_id;
  std::string conversation_id;
  std::string inbox_id;           // the conversation's inbox (reply_address when inbox_id is absent)
  std::string sender_agent;       // empty when the sender did not speak as a named agent
  std::string sender_connection;  // the sending connection id
  std::string text;               // the message body
  std::string kind;               // "message", or a notice the server wrote about a function call (R-D2)
  std::string call_id;            // the call a notice is about
};

// From the Message object as cached JSON text; fields that are missing or of the wrong type stay empty.
DeliveryMessage delivery_message_from_json(std::string_view message_json);

// What the chat must be told besides the messages (R-B9, R-B6). Cursors are mailbox cursors ("m<N>" or
// "0") to read after with the bridge's read op.
struct DeliveryNotices {
  std::int64_t held_back = 0;            // messages waiting on the server because the local cache is full (R-B9)
  std::string held_back_after;
  std::vector<std::string> possibly_lost;  // oldest first: earlier offers that may not have arrived (R-B5, R-B6)
  std::int64_t possibly_lost_total = 0;    // all of them, listed or not
  std::string possibly_lost_after;
  bool empty() const { return held_back == 0 && possibly_lost_total == 0; }
};

struct DeliveryContext {
  std::string agent_name;     // the attached agent the messages are for
  std::string attachment_id;
  std::string provider;       // claude | codex | cursor | …
  bool guidance = false;      // add the full ack/reply instructions (first offer, then once a day)
  std::size_t max_units = kDeliveryBudgetUnits;
  std::size_t waiting_after = 0;  // messages still waiting beyond `messages` (announced with those left out)
  DeliveryNotices notices{};
};

// A budget below this is raised to it: the label, the instructions and one (truncated) message always fit.
inline constexpr std::size_t kMinDeliveryBudget = 2000;

struct DeliveryText {
  std::string text;           // empty when `messages` is empty
  std::size_t included = 0;   // the text holds messages[0, included): the longest prefix that fits
  bool truncated = false;     // the single included message was cut to fit the budget
  std::vector<std::string> lost_listed;  // the possibly lost offers the text lists by id (a prefix of them)
};

// Oldest first (the order given). The longest prefix whose whole text fits ctx.max_units; when even the first
// message alone does not fit, it is included cut short, with a line saying how much was shown and how to read
// it whole. Each body is fenced by lines naming its message id, which a sender cannot know before sending.
// The notices come after the header; with no messages the text holds the notices alone (empty when none).
DeliveryText format_delivery(const std::vector<DeliveryMessage>& messages, const DeliveryContext& ctx);

// R-X3: the one question to a turn that ends without answering messages it was handed (`message_ids`, oldest
// first; ten are named, the rest counted). Well under kMinDeliveryBudget.
std::string silent_turn_nudge(const std::vector<std::string>& message_ids, const DeliveryContext& ctx);

// UTF-16 code units of UTF-8 text.
std::size_t utf16_units(std::string_view utf8);

}  // namespace agentworks::bridge
