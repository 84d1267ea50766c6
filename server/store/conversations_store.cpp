// Conversations and their inboxes: lookup, idle expiry, eviction, history and rate limits (R-M2, R-M11).
#include "agentworks/error.hpp"
#include "agentworks/random.hpp"
#include "clock.hpp"
#include "store/store.hpp"

#include <limits>

namespace agentworks::server {
namespace {

Conversation read_conversation(db::Statement& s) {
  Conversation c;
  c.conversation_id = s.text(0);
  c.inbox_id = s.text(1);
  c.account_id = s.text(2);
  c.initiator_conn = s.text(3);
  c.initiator_agent_id = s.opt_text(4);
  c.target_agent_id = s.text(5);
  c.created_at = s.int64(6);
  c.last_activity = s.int64(7);
  c.state = conversation_state_column(s.text(8));
  c.expired_at = s.opt_int64(9);
  c.next_inbox_seq = s.int64(10);
  c.message_count = s.int64(11);
  c.rate_window = s.text(12);
  return c;
}

}  // namespace

std::optional<Conversation> Store::conversation_by_inbox(const std::string& inbox_id) {
  Q q(*this,
      "SELECT conversation_id, inbox_id, account_id, initiator_conn, initiator_agent_id, target_agent_id, created_at,"
      " last_activity, state, expired_at, next_inbox_seq, message_count, rate_window FROM conversations WHERE inbox_id = ?");
  q->bind(1, inbox_id);
  if (!q->step()) return std::nullopt;
  Conversation c = read_conversation(*q);
  // Removed inboxes answer `expired` only for the retention period, then they are unknown.
  if (c.state == ConversationState::expired && c.expired_at && *c.expired_at < now() - limits_.expired_retention_seconds)
    return std::nullopt;
  return c;
}

std::optional<Conversation> Store::conversation_by_id(const std::string& conversation_id) {
  Q q(*this,
      "SELECT conversation_id, inbox_id, account_id, initiator_conn, initiator_agent_id, target_agent_id, created_at,"
      " last_activity, state, expired_at, next_inbox_seq, message_count, rate_window FROM conversations"
      " WHERE conversation_id = ?");
  q->bind(1, conversation_id);
  if (!q->step()) return std::nullopt;
  return read_conversation(*q);
}

void Store::expire_conversation(const std::string& conversation_id) {
  {
    Q q(*this, "UPDATE conversations SET state = 'expired', expired_at = ? WHERE conversation_id = ?");
    q->bind(1, now()).bind(2, conversation_id).run();
  }
  {
    Q q(*this, "DELETE FROM messages WHERE conversation_id = ?");
    q->bind(1, conversation_id).run();
  }
}

bool Store::expire_if_idle(Conversation& c) {
  if (c.state != ConversationState::open || c.last_activity >= now() - limits_.inbox_idle_seconds) return false;
  expire_conversation(c.conversation_id);
  c.state = ConversationState::expired;
  c.expired_at = now();
  return true;
}

// A message is pending while it is addressed to an agent with a live attachment and not yet processed.
bool Store::has_pending(const std::string& conversation_id) {
  Q q(*this,
      "SELECT 1 FROM messages m WHERE m.conversation_id = ? AND m.state != 'processed'"
      " AND m.recipient_agent_id IS NOT NULL AND EXISTS (SELECT 1 FROM attachments a"
      " WHERE a.agent_id = m.recipient_agent_id AND a.state = 'current') LIMIT 1");
  q->bind(1, conversation_id);
  return q->step();
}

void Store::sweep_before_new_conversation(const std::string& account_id) {
  const std::int64_t t = now();
  std::vector<std::string> idle;
  {
    Q q(*this, "SELECT conversation_id FROM conversations WHERE state = 'open' AND last_activity < ?");
    q->bind(1, t - limits_.inbox_idle_seconds);
    while (q->step()) idle.push_back(q->text(0));
  }
  for (const auto& id : idle) expire_conversation(id);
  {
    Q q(*this, "DELETE FROM conversations WHERE state = 'expired' AND expired_at < ?");
    q->bind(1, t - limits_.expired_retention_seconds).run();
  }
  {
    Q q(*this,
        "DELETE FROM conversations WHERE conversation_id IN (SELECT conversation_id FROM conversations"
        " WHERE state = 'expired' ORDER BY expired_at DESC, rowid DESC LIMIT ? OFFSET ?)");
    q->bind(1, std::numeric_limits<std::int64_t>::max()).bind(2, limits_.max_expired_remembered).run();
  }
  {
    Q q(*this, "DELETE FROM submissions WHERE created_at < ?");
    q->bind(1, t - limits_.submission_retention_seconds).run();
  }

  // Caps: evict the oldest idle inbox without pending messages, per account then store-wide.
  for (int scope = 0; scope < 2; ++scope) {
    const bool per_account = scope == 0;
    std::int64_t open_count = 0;
    if (per_account) {
      Q q(*this, "SELECT COUNT(*) FROM conversations WHERE state = 'open' AND account_id = ?");
      q->bind(1, account_id);
      q->step();
      open_count = q->int64(0);
    } else {
      Q q(*this, "SELECT COUNT(*) FROM conversations WHERE state = 'open'");
      q->step();
      open_count = q->int64(0);
    }
    const int cap = per_account ? limits_.max_inboxes_per_account : limits_.max_inboxes_total;
    while (open_count >= cap) {
      std::optional<std::string> victim;
      {
        Q q(*this,
            "SELECT c.conversation_id FROM conversations c WHERE c.state = 'open' AND (? = '' OR c.account_id = ?)"
            " AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = c.conversation_id"
            " AND m.state != 'processed' AND m.recipient_agent_id IS NOT NULL AND EXISTS (SELECT 1 FROM attachments a"
            " WHERE a.agent_id = m.recipient_agent_id AND a.state = 'current'))"
            " ORDER BY c.last_activity, c.rowid LIMIT 1");
        const std::string scope_account = per_account ? account_id : std::string();
        q->bind(1, scope_account).bind(2, scope_account);
        if (q->step()) victim = q->text(0);
      }
      if (!victim)
        throw Error(ErrorCode::limit_reached,
                    per_account ? "this account has the maximum number of open inboxes and all have pending messages"
                                : "the server has the maximum number of open inboxes and all have pending messages");
      expire_conversation(*victim);
      --open_count;
    }
  }
}

Conversation Store::open_conversation_for_send(const Connection& caller, const std::optional<Agent>& speaker,
                                               const Agent& target) {
  std::optional<Conversation> found;
  {
    Q q(*this,
        "SELECT conversation_id, inbox_id, account_id, initiator_conn, initiator_agent_id, target_agent_id, created_at,"
        " last_activity, state, expired_at, next_inbox_seq, message_count, rate_window FROM conversations"
        " WHERE account_id = ? AND target_agent_id = ? AND state = 'open'"
        " AND ((? != '' AND initiator_agent_id = ?) OR (? = '' AND initiator_agent_id IS NULL AND initiator_conn = ?))"
        " ORDER BY created_at DESC, rowid DESC LIMIT 1");
    const std::string speaker_id = speaker ? speaker->agent_id : std::string();
    q->bind(1, caller.account_id).bind(2, target.agent_id);
    q->bind(3, speaker_id).bind(4, speaker_id).bind(5, speaker_id).bind(6, caller.connection_id);
    if (q->step()) found = read_conversation(*q);
  }
  if (found && !expire_if_idle(*found)) return *found;

  sweep_before_new_conversation(caller.account_id);
  Conversation c;
  c.account_id = caller.account_id;
  c.initiator_conn = caller.connection_id;
  if (speaker) {
    c.initiator_agent_id = speaker->agent_id;
    c.initiator_agent_name = speaker->name;
  }
  c.target_agent_id = target.agent_id;
  c.target_agent_name = target.name;
  return insert_conversation(std::move(c));
}

Conversation Store::insert_conversation(Conversation c) {
  c.conversation_id = new_id("cnv");
  c.inbox_id = new_id("inb");
  c.created_at = c.last_activity = now();
  c.state = ConversationState::open;
  Q q(*this,
      "INSERT INTO conversations(conversation_id, inbox_id, account_id, initiator_conn, initiator_agent_id,"
      " target_agent_id, created_at, last_activity) VALUES(?,?,?,?,?,?,?,?)");
  q->bind(1, c.conversation_id).bind(2, c.inbox_id).bind(3, c.account_id).bind(4, c.initiator_conn);
  q->bind(5, c.initiator_agent_id).bind(6, c.target_agent_id).bind(7, c.created_at).bind(8, c.last_activity).run();
  return c;
}

// The rate window keeps per-minute counts of accepted messages; a minute counts while any part of it is within
// the last hour. Kept in the conversation row, so a send writes no extra pages.
namespace {
std::vector<std::pair<std::int64_t, std::int64_t>> parse_window(const std::string& text, std::int64_t t) {
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find(',', pos);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(pos, end - pos);
    const std::size_t colon = item.find(':');
    if (colon != std::string::npos) {
      try {
        const std::int64_t minute = std::stoll(item.substr(0, colon));
        const std::int64_t count = std::stoll(item.substr(colon + 1));
        if (minute * 60 + 60 > t - 3600) out.emplace_back(minute, count);
      } catch (const std::exception&) {
      }
    }
    pos = end + 1;
  }
  return out;
}
}  // namespace

void Store::check_rate(const Conversation& c) {
  std::int64_t total = 0;
  for (const auto& [minute, count] : parse_window(c.rate_window, now())) total += count;
  if (total >= limits_.rate_limit_per_hour)
    throw Error(ErrorCode::rate_limited, "this conversation reached " + std::to_string(limits_.rate_limit_per_hour) +
                                             " messages in the last hour; wait and retry later");
}

std::string Store::count_in_rate_window(const Conversation& c) {
  const std::int64_t t = now();
  auto window = parse_window(c.rate_window, t);
  const std::int64_t minute = t / 60;
  if (!window.empty() && window.back().first == minute) {
    ++window.back().second;
  } else {
    window.emplace_back(minute, 1);
  }
  std::string out;
  for (const auto& [m, count] : window) {
    if (!out.empty()) out += ',';
    out += std::to_string(m) + ":" + std::to_string(count);
  }
  return out;
}

void Store::make_room_in_inbox(Conversation& c) {
  while (c.message_count >= limits_.inbox_history && c.message_count > 0) {
    std::int64_t seq = 0;
    {
      Q q(*this, "SELECT seq FROM messages WHERE conversation_id = ? ORDER BY inbox_seq LIMIT 1");
      q->bind(1, c.conversation_id);
      if (!q->step()) {
        c.message_count = 0;
        break;
      }
      seq = q->int64(0);
    }
    {
      Q q(*this,
          "SELECT 1 FROM messages m WHERE m.seq = ? AND m.state != 'processed' AND m.recipient_agent_id IS NOT NULL"
          " AND EXISTS (SELECT 1 FROM attachments a WHERE a.agent_id = m.recipient_agent_id AND a.state = 'current')");
      q->bind(1, seq);
      if (q->step())
        throw Error(ErrorCode::inbox_full,
                    "the inbox holds its maximum of messages and the oldest is still pending; retry after it is processed");
    }
    {
      Q q(*this, "DELETE FROM messages WHERE seq = ?");
      q->bind(1, seq).run();
    }
    --c.message_count;
  }
}

bool Store::is_party(const Connection& caller, const Conversation& c, const std::optional<Agent>& speaker) {
  if (speaker) return speaker->agent_id == c.target_agent_id || speaker->agent_id == c.initiator_agent_id;
  if (!caller.is_login())
    return caller.agent_id && (*caller.agent_id == c.target_agent_id || *caller.agent_id == c.initiator_agent_id);
  if (caller.connection_id == c.initiator_conn) return true;
  if (auto target = agent_by_id(c.target_agent_id); target && allowed(caller, *target)) return true;
  if (c.initiator_agent_id) {
    if (auto init = agent_by_id(*c.initiator_agent_id); init && allowed(caller, *init)) return true;
  }
  return false;
}

Conversation Store::inbox_info(const Connection& caller, const std::string& inbox_id) {
  const auto c = conversation_by_inbox(inbox_id);
  if (!c || c->account_id != caller.account_id) throw Error(ErrorCode::not_found, "no inbox '" + inbox_id + "'");
  return agent_inbox_info(c->target_agent_id, inbox_id);
}

Conversation Store::agent_inbox_info(const std::string& agent_id, const std::string& inbox_id) {
  auto c = conversation_by_inbox(inbox_id);
  if (!c || c->target_agent_id != agent_id) throw Error(ErrorCode::not_found, "no inbox '" + inbox_id + "'");
  expire_if_idle(*c);
  if (auto t = agent_by_id(c->target_agent_id, true)) c->target_agent_name = t->name;
  if (c->initiator_agent_id) {
    if (auto a = agent_by_id(*c->initiator_agent_id, true)) c->initiator_agent_name = a->name;
  }
  return *c;
}

// R-D2, R-W2: see store.hpp.
Message Store::store_notice(const Notice& notice) {
  const auto target = agent_by_id(notice.agent_id);
  if (!target) return Message{};  // the agent was unregistered since: nobody to tell
  // The call (or "wakeups") is the conversation's initiator: no connection has its id, so no send continues it.
  std::optional<Conversation> conv;
  if (notice.conversation_id) {  // R-K2: a Crew agent's wakeup prompts the conversation it was scheduled in
    conv = conversation_by_id(*notice.conversation_id);
    if (!conv || conv->target_agent_id != target->agent_id || expire_if_idle(*conv) ||
        conv->state != ConversationState::open)
      return Message{};
  } else {
    Q q(*this,
        "SELECT conversation_id, inbox_id, account_id, initiator_conn, initiator_agent_id, target_agent_id,"
        " created_at, last_activity, state, expired_at, next_inbox_seq, message_count, rate_window FROM conversations"
        " WHERE account_id = ? AND initiator_conn = ? AND target_agent_id = ? AND state = 'open'");
    q->bind(1, notice.account_id).bind(2, notice.initiator).bind(3, notice.agent_id);
    if (q->step()) conv = read_conversation(*q);
  }
  if (!conv) {
    Conversation c;
    c.account_id = notice.account_id;
    c.initiator_conn = notice.initiator;
    c.target_agent_id = notice.agent_id;
    conv = insert_conversation(std::move(c));
  }
  Message m;
  m.message_id = notice.message_id.value_or(new_time_ordered_id("msg"));
  m.account_id = conv->account_id;
  m.conversation_id = conv->conversation_id;
  m.inbox_id = conv->inbox_id;
  m.inbox_seq = conv->next_inbox_seq;
  m.direction = "to_agent";
  m.sender_conn = notice.initiator;
  m.recipient_agent_id = target->agent_id;
  m.recipient_agent_name = target->name;
  m.body = notice.body;
  m.created_at = now();
  m.kind = notice.kind;
  m.call_id = notice.call_id;
  m.call_status = notice.call_status;
  store_sent_message(*conv, m);
  request_events_.messages.push_back(m);
  return m;
}

}  // namespace agentworks::server
