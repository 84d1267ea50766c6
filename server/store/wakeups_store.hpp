// Durable wakeups (R-W1..R-W5): an agent asks to be prompted again later in its own chat. Stored with the agent's
// identity (never with a chat), so they survive restarts and a move of the name. A due one becomes a notice of
// kind "wakeup" in the agent's wakeup conversation and reaches the chat through the once-only offer path like any
// message; it never resends a message. Its states: pending -> due (its notice is stored, waiting for the chat)
// -> offered (the bridge's release check passed) -> delivered (the agent acknowledged it); or cancelled, or
// interrupted (the bridge reported the offer may not have arrived: never offered again).
#pragma once

#include <climits>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "store/records.hpp"

namespace agentworks::server {

class Store;

inline constexpr int kMaxPendingWakeups = 20;                        // per agent (R-W5)
inline constexpr std::int64_t kMaxWakeupAheadSeconds = 30LL * 86400;  // at most 30 days ahead (R-W5)
inline constexpr std::size_t kMaxWakeupNoteChars = 1000;
inline constexpr int kWakeupFireBatch = 100;  // wakeups turned due per tick: bounded work on the loop

struct Wakeup {
  std::string wakeup_id;
  std::string account_id;
  std::string agent_id;
  std::string agent_name;
  std::string note;
  std::int64_t due_at = 0;
  std::string state;  // pending, due, offered, delivered, cancelled, interrupted (pending past due_at reads due)
  std::int64_t created_at = 0;
  std::int64_t updated_at = 0;
  std::optional<std::string> message_id;  // its notice, once due
  std::optional<std::int64_t> fired_at;
  // A Crew agent's wakeup prompts a turn in this conversation (R-K2); a chat's goes to its wakeup conversation.
  std::optional<std::string> conversation_id;
};

struct WakeupRequest {
  std::string agent_name;
  std::optional<std::int64_t> after_minutes;  // 1..43,200
  std::optional<std::string> at;              // RFC 3339
  std::string note;
  std::optional<std::string> wakeup_id;  // reschedule this pending one
};

// The agent's own chat (its child connection) or a login connection of its account; the person lists and cancels
// a Crew agent's wakeups as "crew:NAME" but never schedules one (its turns do). `rescheduled` says whether
// wakeup_id named an existing pending wakeup.
Wakeup schedule_wakeup(Store& store, const Connection& caller, const WakeupRequest& request);
// A Crew agent's turn (R-K2 with R-W1): the wakeups of the conversation it answers, the same rules and limits
// (20 pending per Crew agent). `scheduled_by` names the Crew (the turn has no stored connection).
Wakeup schedule_conversation_wakeup(Store& store, const std::string& conversation_id, const WakeupRequest& request,
                                    const std::string& scheduled_by);
Wakeup cancel_conversation_wakeup(Store& store, const std::string& conversation_id, const std::string& wakeup_id);
std::vector<Wakeup> list_conversation_wakeups(Store& store, const std::string& conversation_id);
// A Crew agent's wakeup prompted a turn (offered), the turn ended (delivered) or was cut (interrupted).
void note_turn_wakeups(Store& store, const std::string& conversation_id, std::int64_t after, std::int64_t up_to,
                       const std::string& state);
// Idempotent on a cancelled one; conflict once it is due or later (it already prompted, or will).
Wakeup cancel_wakeup(Store& store, const Connection& caller, const std::string& agent_name,
                     const std::string& wakeup_id);
struct WakeupList {
  std::string agent_name;  // as the agent is named to the person (crew:NAME for a Crew's own agent)
  std::vector<Wakeup> wakeups;
};
// Pending first (soonest first), then the last 20 others, newest first.
WakeupList list_wakeups(Store& store, const Connection& caller, const std::string& agent_name);

// The person's hold on every wakeup of their account (login connections only): due ones wait until resumed.
void set_wakeups_paused(Store& store, const Connection& caller, bool paused);
bool wakeups_paused(Store& store, const std::string& account_id);

// Where the tick's scan of due wakeups goes on from: due ones that wait (their chat does not receive) are passed
// over, and the next tick starts after them, so a backlog of waiting ones never starves a chat that receives.
struct WakeupScan {
  std::int64_t due_at = INT64_MIN;
  std::string wakeup_id;
};

// The tick: looks at up to kWakeupFireBatch pending wakeups whose time has come, after `scan` (wrapping to the
// start when it reached the end), and turns those of agents whose chat is receiving now (`receiving`) into
// notices; the others stay pending and read `due` until their chat is back. Bounded work per tick: a wakeup waits
// at most one tick per kWakeupFireBatch due ones before it. Returns how many fired. On replicas the conditional
// update makes each fire once.
int fire_due_wakeups(Store& store, std::int64_t now, const std::function<bool(const std::string&)>& receiving,
                     WakeupScan& scan);

// The notices of these messages passed a release check (offered) or were acknowledged (delivered); the bridge
// reported their offers may not have arrived (interrupted). Messages that are no wakeup's notice are ignored.
void note_wakeups_offered(Store& store, const std::vector<std::string>& message_ids);
void note_wakeup_acknowledged(Store& store, const std::string& message_id);
int note_wakeups_interrupted(Store& store, const Attachment& attachment, const std::vector<std::string>& message_ids);

// The state a reader sees: a pending wakeup whose time has come reads `due`.
std::string visible_state(const Wakeup& w, std::int64_t now);

}  // namespace agentworks::server
