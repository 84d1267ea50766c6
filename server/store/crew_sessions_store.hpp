// Conversations with a Crew's own agent (R-K2): each conversation's continuing session and its one turn at a time.
// A turn is claimed by a conditional write (one replica wins, a retry claims nothing twice) that takes every
// message to the Crew's agent past the session's `seen_seq`; messages that arrive during the turn wait past it
// for the next one. The turn's secret lets its MCP server speak in that conversation only, while it runs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "store/records.hpp"

// What a Crew agent's turn takes in (R-K2): the messages to it, the notices of its own wakeups (R-W2) and of the
// calls it made from the conversation (R-D2); nothing else reaches a Crew agent's conversation. A macro, so that statements stay single literals (the statement cache keys on the address).
#define AW_TURN_INPUT \
  "direction = 'to_agent' AND (kind IS NULL OR kind IN ('wakeup', 'call_outcome', 'call_question'))"

namespace agentworks::server {

class Store;

struct CrewSession {
  std::string conversation_id;
  std::string account_id;
  std::string crew_id;
  std::string runner;                     // claude | codex
  std::optional<std::string> session_id;  // Claude's session id (chosen before its first turn), Codex's thread id
  bool running = false;
  std::int64_t seen_seq = 0;       // the last inbox_seq given to a turn
  std::int64_t turn_from_seq = 0;  // the running (or last) turn holds the messages in (turn_from_seq, seen_seq]
  std::int64_t turns = 0;          // turns started: a later one resumes the session
  bool spoke = false;              // the running (or last) turn sent a message or declined on purpose
  std::optional<std::int64_t> last_turn_at;
  std::string turn_token_hash;
};

std::optional<CrewSession> crew_session(Store& store, const std::string& conversation_id);

// The next turn of a conversation with the Crew's agent `agent_id`: nullopt when a turn runs or nothing waits.
// Marks its messages admitted and notes the turn for the commit to start (Store::note_turn_started).
struct TurnClaim {
  CrewSession session;  // as claimed: running, with the session id the turn uses
  std::vector<Message> messages;
  bool resume = false;  // an earlier turn started the session
};
// The conversation's session row, idle, when it has none yet (a turn that waits for a slot shows in crews show).
void ensure_crew_session(Store& store, const Conversation& conv, const std::string& crew_id, const std::string& runner);
std::optional<TurnClaim> claim_turn(Store& store, const Conversation& conv, const std::string& crew_id,
                                    const std::string& runner, const std::string& token,
                                    const std::optional<std::string>& new_session_id);

// Codex announces its thread id in the turn's first events: kept as soon as seen so an interrupted turn resumes.
void set_turn_session(Store& store, const std::string& conversation_id, const std::string& session_id);

// Ends the running turn: its messages processed; when it neither sent nor declined (R-X3), each of them still
// unanswered reads `unanswered` and its sender gets one status line.
void end_turn(Store& store, const std::string& conversation_id, const std::string& token_hash);

// A server restart cut these turns (R-K2): their messages read `interrupted` and are not run again by themselves.
// At a start: SQLite's every running turn, a PostgreSQL replica's own and those whose lease lapsed; while running:
// only other replicas' lapsed ones.
enum class CutTurns { all, at_replica_start, lapsed_elsewhere };
std::vector<std::string> interrupt_cut_turns(Store& store, CutTurns which);
void renew_turn_leases(Store& store);

// The turn of `conversation_id` whose secret is `token` (sha256 compared), running: else nullopt.
std::optional<CrewSession> running_turn(Store& store, const std::string& conversation_id, const std::string& token);
void mark_turn_spoke(Store& store, const std::string& conversation_id);
// R-X2: the running turn's messages not yet answered read `no_reply`; how many.
int decline_turn_messages(Store& store, const CrewSession& turn);

// Conversations with a Crew's agent where messages wait for a turn (at most `limit`, oldest first).
std::vector<std::string> conversations_waiting(Store& store, int limit);

// The owner's view (crews show): the Crew's conversations, newest first.
struct CrewConversationRow {
  CrewSession session;
  std::string inbox_id;
  std::optional<std::string> initiator_agent_name;
  std::int64_t waiting = 0;
};
std::vector<CrewConversationRow> crew_conversations(Store& store, const std::string& crew_id, int limit);

}  // namespace agentworks::server
