// What the local status page lists (the `activity` op): the newest journaled messages with their delivery times,
// and the newest outbox items with their outcome.
#include "state/journal.hpp"

namespace agentworks::bridge {
namespace {

constexpr const char* kDeliveryColumns =
    "SELECT message_id, attachment_id, seq, state, coalesce(reason, ''), received_at, offered_at, admitted_at, "
    "processed_at, body IS NOT NULL FROM messages ";

DeliveryEntry delivery_from(const sql::Stmt& s) {
  DeliveryEntry e;
  e.message_id = s.text(0);
  e.attachment_id = s.text(1);
  e.seq = s.int64(2);
  // An unknown state string would be a journal written by a newer bridge: show it as received, never crash.
  e.state = parse_message_state(s.text(3)).value_or(MessageState::received);
  e.reason = s.text(4);
  e.received_at = s.int64(5);
  e.offered_at = s.opt_int64(6);
  e.admitted_at = s.opt_int64(7);
  e.processed_at = s.opt_int64(8);
  e.body_cached = s.int64(9) != 0;
  return e;
}

}  // namespace

std::vector<DeliveryEntry> Journal::recent_deliveries(int limit) {
  sql::Stmt s(db_, std::string(kDeliveryColumns) + "ORDER BY received_at DESC, seq DESC LIMIT ?1");
  s.bind(1, static_cast<std::int64_t>(limit));
  std::vector<DeliveryEntry> out;
  while (s.step()) out.push_back(delivery_from(s));
  return out;
}

std::optional<DeliveryEntry> Journal::delivery(const std::string& message_id) {
  sql::Stmt s(db_, std::string(kDeliveryColumns) + "WHERE message_id = ?1");
  s.bind(1, message_id);
  if (!s.step()) return std::nullopt;
  return delivery_from(s);
}

std::optional<std::string> Journal::cached_body(const std::string& message_id) {
  sql::Stmt s(db_, "SELECT body FROM messages WHERE message_id = ?1");
  s.bind(1, message_id);
  if (!s.step()) return std::nullopt;
  return s.opt_text(0);
}

std::vector<OutboxEntry> Journal::recent_outbox(int limit) {
  sql::Stmt s(db_,
              "SELECT seq, submission_id, attachment_id, kind, path, body, state, attempts, coalesce(last_error, ''), "
              "created_at, done_at FROM outbox ORDER BY seq DESC LIMIT ?1");
  s.bind(1, static_cast<std::int64_t>(limit));
  std::vector<OutboxEntry> out;
  while (s.step()) {
    OutboxEntry e;
    e.seq = s.int64(0);
    e.submission_id = s.text(1);
    e.attachment_id = s.text(2);
    e.kind = s.text(3);
    e.path = s.text(4);
    e.body = s.text(5);
    e.state = parse_outbox_state(s.text(6)).value_or(OutboxState::queued);
    e.attempts = s.int64(7);
    e.last_error = s.text(8);
    e.created_at = s.int64(9);
    e.done_at = s.opt_int64(10);
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace agentworks::bridge
