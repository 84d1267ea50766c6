// The owner's view of one agent's conversations (docs/protocol.md "Agent state"): the inboxes it receives
// in, newest first and paged, each with its last delivery records (ids, direction, receipt, reply_state, times),
// and where its messages are received now. Never a message body. Bounded: at most 50 inboxes of 20 records a page.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "store/records.hpp"

namespace agentworks::server {

class Store;

struct DeliveryRecord {
  std::string message_id;
  std::string direction;
  std::string kind;
  MessageState state = MessageState::stored;
  std::optional<std::string> reply_state;
  std::int64_t created_at = 0;
  std::optional<std::int64_t> admitted_at;
  std::optional<std::int64_t> processed_at;
};

struct InboxState {
  Conversation conversation;  // names filled in
  std::vector<DeliveryRecord> deliveries;  // newest first, at most kStateRecords
};

struct AgentState {
  Agent agent;
  std::optional<Attachment> receiving;  // the current attachment, if any
  std::vector<InboxState> inboxes;
  std::optional<std::string> next_after;  // the cursor of the next page
};

inline constexpr int kStateRecords = 20;
inline constexpr int kMaxStateInboxes = 50;

// For a login connection of the agent's account (not_found otherwise, as for an unknown name). `after` is a
// previous next_after ("c<N>"); a malformed one is bad_request.
AgentState agent_state(Store& store, const Connection& caller, const std::string& agent_name,
                       const std::optional<std::string>& after, int limit);

}  // namespace agentworks::server
