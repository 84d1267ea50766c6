#include "store/crew_sessions_store.hpp"

#include "agentworks/sha256.hpp"
#include "clock.hpp"
#include "store/store.hpp"
#include "store/wakeups_store.hpp"

namespace agentworks::server {
namespace {

#define AW_SESSION_COLUMNS                                                                                    \
  "conversation_id, account_id, crew_id, runner, session_id, turn_state, seen_seq, turn_from_seq, turns, spoke," \
  " last_turn_at, turn_token_hash"

CrewSession read_session(db::Statement& s, int at = 0) {
  CrewSession c;
  c.conversation_id = s.text(at + 0);
  c.account_id = s.text(at + 1);
  c.crew_id = s.text(at + 2);
  c.runner = s.text(at + 3);
  c.session_id = s.opt_text(at + 4);
  c.running = s.text(at + 5) == "running";
  c.seen_seq = s.int64(at + 6);
  c.turn_from_seq = s.int64(at + 7);
  c.turns = s.int64(at + 8);
  c.spoke = s.int64(at + 9) != 0;
  c.last_turn_at = s.opt_int64(at + 10);
  c.turn_token_hash = s.opt_text(at + 11).value_or("");
  return c;
}

// The newest message to the agent of the conversation past `after`, 0 when none waits.
std::int64_t last_waiting(Store& store, const std::string& conversation_id, std::int64_t after) {
  Q q(store,
      "SELECT COALESCE(MAX(inbox_seq), 0) FROM messages WHERE conversation_id = ? AND " AW_TURN_INPUT
      " AND inbox_seq > ?");
  q->bind(1, conversation_id).bind(2, after);
  return q->step() ? q->int64(0) : 0;
}

}  // namespace

std::optional<CrewSession> crew_session(Store& store, const std::string& conversation_id) {
  Q q(store, "SELECT " AW_SESSION_COLUMNS " FROM crew_sessions WHERE conversation_id = ?");
  q->bind(1, conversation_id);
  if (!q->step()) return std::nullopt;
  return read_session(*q);
}

void ensure_crew_session(Store& store, const Conversation& conv, const std::string& crew_id, const std::string& runner) {
  Q q(store,
      "INSERT INTO crew_sessions(conversation_id, account_id, crew_id, runner, turn_state, created_at)"
      " VALUES(?,?,?,?,'idle',?) ON CONFLICT DO NOTHING");
  q->bind(1, conv.conversation_id).bind(2, conv.account_id).bind(3, crew_id).bind(4, runner).bind(5, now()).run();
}

std::optional<TurnClaim> claim_turn(Store& store, const Conversation& conv, const std::string& crew_id,
                                    const std::string& runner, const std::string& token,
                                    const std::optional<std::string>& new_session_id) {
  ensure_crew_session(store, conv, crew_id, runner);
  auto session = crew_session(store, conv.conversation_id);
  if (!session || session->running) return std::nullopt;
  const std::int64_t upto = last_waiting(store, conv.conversation_id, session->seen_seq);
  if (upto == 0) return std::nullopt;
  const std::int64_t at = now();
  {
    Q q(store,
        "UPDATE crew_sessions SET turn_state = 'running', turn_token_hash = ?, turn_replica = ?,"
        " turn_lease_expires_at = ?, turn_from_seq = seen_seq, seen_seq = ?, spoke = 0, turns = turns + 1,"
        " turn_started_at = ?, session_id = COALESCE(session_id, ?)"
        " WHERE conversation_id = ? AND turn_state = 'idle' AND seen_seq = ?");
    q->bind(1, sha256_hex(token)).bind(2, store.replica_id()).bind(3, at + store.limits().call_lease_seconds);
    q->bind(4, upto).bind(5, at).bind(6, new_session_id).bind(7, conv.conversation_id).bind(8, session->seen_seq);
    q->run();
    if (store.sql_changes() == 0) return std::nullopt;  // another replica's claim came first
  }
  {
    Q q(store,
        "UPDATE messages SET state = 'admitted', admitted_at = ?, via = 'crew-agent' WHERE conversation_id = ?"
        " AND " AW_TURN_INPUT " AND inbox_seq > ? AND inbox_seq <= ? AND state = 'stored'");
    q->bind(1, at).bind(2, conv.conversation_id).bind(3, session->seen_seq).bind(4, upto).run();
  }
  note_turn_wakeups(store, conv.conversation_id, session->seen_seq, upto, "offered");
  TurnClaim claim;
  claim.resume = session->turns > 0;
  claim.session = *crew_session(store, conv.conversation_id);
  claim.messages = store.turn_messages(conv.conversation_id, session->seen_seq, upto);
  store.note_turn_started(conv.conversation_id, token);
  return claim;
}

void set_turn_session(Store& store, const std::string& conversation_id, const std::string& session_id) {
  Q q(store, "UPDATE crew_sessions SET session_id = ? WHERE conversation_id = ?");
  q->bind(1, session_id).bind(2, conversation_id).run();
}

void end_turn(Store& store, const std::string& conversation_id, const std::string& token_hash) {
  const auto session = crew_session(store, conversation_id);
  if (!session || !session->running || session->turn_token_hash != token_hash) return;
  const std::int64_t at = now();
  {
    Q q(store,
        "UPDATE crew_sessions SET turn_state = 'idle', turn_token_hash = NULL, turn_replica = NULL,"
        " turn_lease_expires_at = NULL, last_turn_at = ? WHERE conversation_id = ? AND turn_state = 'running'");
    q->bind(1, at).bind(2, conversation_id).run();
  }
  {
    Q q(store,
        "UPDATE messages SET state = 'processed', processed_at = ? WHERE conversation_id = ?"
        " AND " AW_TURN_INPUT " AND inbox_seq > ? AND inbox_seq <= ? AND state != 'processed'");
    q->bind(1, at).bind(2, conversation_id).bind(3, session->turn_from_seq).bind(4, session->seen_seq).run();
  }
  note_turn_wakeups(store, conversation_id, session->turn_from_seq, session->seen_seq, "delivered");
  if (session->spoke) return;
  // R-X3: the turn ended silent; the nudge (its one question) was the runner's.
  for (const Message& m : store.turn_messages(conversation_id, session->turn_from_seq, session->seen_seq)) {
    if (m.reply_state || m.is_notice()) continue;  // a wakeup has nobody to tell
    Q q(store, "UPDATE messages SET reply_state = 'unanswered' WHERE message_id = ? AND reply_state IS NULL");
    q->bind(1, m.message_id).run();
    if (store.sql_changes() > 0) store.store_status_line(m);
  }
}

std::vector<std::string> interrupt_cut_turns(Store& store, CutTurns which) {
  std::vector<CrewSession> cut;
  {
    Q q(store,
        "SELECT " AW_SESSION_COLUMNS " FROM crew_sessions WHERE turn_state = 'running'"
        " AND (? = 1 OR (? = 1 AND turn_replica = ?) OR ((turn_replica IS NULL OR turn_replica != ?)"
        " AND (turn_lease_expires_at IS NULL OR turn_lease_expires_at < ?)))");
    q->bind(1, which == CutTurns::all ? 1 : 0).bind(2, which == CutTurns::at_replica_start ? 1 : 0);
    q->bind(3, store.replica_id()).bind(4, store.replica_id()).bind(5, now());
    while (q->step()) cut.push_back(read_session(*q));
  }
  std::vector<std::string> ids;
  for (const auto& s : cut) {
    {
      Q q(store,
          "UPDATE crew_sessions SET turn_state = 'idle', turn_token_hash = NULL, turn_replica = NULL,"
          " turn_lease_expires_at = NULL, last_turn_at = ? WHERE conversation_id = ? AND turn_state = 'running'");
      q->bind(1, now()).bind(2, s.conversation_id).run();
    }
    Q q(store,
        "UPDATE messages SET reply_state = 'interrupted' WHERE conversation_id = ? AND direction = 'to_agent'"
        " AND kind IS NULL AND inbox_seq > ? AND inbox_seq <= ? AND reply_state IS NULL");
    q->bind(1, s.conversation_id).bind(2, s.turn_from_seq).bind(3, s.seen_seq).run();
    note_turn_wakeups(store, s.conversation_id, s.turn_from_seq, s.seen_seq, "interrupted");  // R-W4
    ids.push_back(s.conversation_id);
  }
  return ids;
}

void renew_turn_leases(Store& store) {
  Q q(store, "UPDATE crew_sessions SET turn_lease_expires_at = ? WHERE turn_replica = ? AND turn_state = 'running'");
  q->bind(1, now() + store.limits().call_lease_seconds).bind(2, store.replica_id()).run();
}

std::optional<CrewSession> running_turn(Store& store, const std::string& conversation_id, const std::string& token) {
  auto session = crew_session(store, conversation_id);
  if (!session || !session->running || token.empty() || sha256_hex(token) != session->turn_token_hash)
    return std::nullopt;
  return session;
}

void mark_turn_spoke(Store& store, const std::string& conversation_id) {
  Q q(store, "UPDATE crew_sessions SET spoke = 1 WHERE conversation_id = ? AND turn_state = 'running'");
  q->bind(1, conversation_id).run();
}

int decline_turn_messages(Store& store, const CrewSession& turn) {
  Q q(store,
      "UPDATE messages SET reply_state = 'no_reply' WHERE conversation_id = ? AND direction = 'to_agent'"
      " AND kind IS NULL AND inbox_seq > ? AND inbox_seq <= ? AND reply_state IS NULL");
  q->bind(1, turn.conversation_id).bind(2, turn.turn_from_seq).bind(3, turn.seen_seq).run();
  return store.sql_changes();
}

std::vector<std::string> conversations_waiting(Store& store, int limit) {
  std::vector<std::string> out;
  Q q(store,
      "SELECT c.conversation_id FROM agents a JOIN conversations c ON c.target_agent_id = a.agent_id"
      " AND c.account_id = a.account_id AND c.state = 'open'"
      " LEFT JOIN crew_sessions s ON s.conversation_id = c.conversation_id"
      " WHERE a.crew_id IS NOT NULL AND a.removed = 0 AND (s.turn_state IS NULL OR s.turn_state = 'idle')"
      " AND EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = c.conversation_id"
      " AND " AW_TURN_INPUT " AND m.inbox_seq > COALESCE(s.seen_seq, 0))"
      " ORDER BY c.last_activity LIMIT ?");
  q->bind(1, limit);
  while (q->step()) out.push_back(q->text(0));
  return out;
}

std::vector<CrewConversationRow> crew_conversations(Store& store, const std::string& crew_id, int limit) {
  std::vector<CrewConversationRow> out;
  {
    Q q(store,
        "SELECT s.conversation_id, s.account_id, s.crew_id, s.runner, s.session_id, s.turn_state, s.seen_seq,"
        " s.turn_from_seq, s.turns, s.spoke, s.last_turn_at, s.turn_token_hash, c.inbox_id, ia.name"
        " FROM crew_sessions s JOIN conversations c ON c.conversation_id = s.conversation_id"
        " LEFT JOIN agents ia ON ia.agent_id = c.initiator_agent_id"
        " WHERE s.crew_id = ? ORDER BY COALESCE(s.last_turn_at, s.created_at) DESC LIMIT ?");
    q->bind(1, crew_id).bind(2, limit);
    while (q->step()) {
      CrewConversationRow row;
      row.session = read_session(*q);
      row.inbox_id = q->text(12);
      row.initiator_agent_name = q->opt_text(13);
      out.push_back(std::move(row));
    }
  }
  for (auto& row : out) {
    Q q(store,
        "SELECT COUNT(*) FROM messages WHERE conversation_id = ? AND " AW_TURN_INPUT " AND inbox_seq > ?");
    q->bind(1, row.session.conversation_id).bind(2, row.session.seen_seq);
    row.waiting = q->step() ? q->int64(0) : 0;
  }
  return out;
}

}  // namespace agentworks::server
