#include "store/wakeups_store.hpp"

#include "agentworks/error.hpp"
#include "agentworks/random.hpp"
#include "agentworks/utc_time.hpp"
#include "agentworks/validation.hpp"
#include "clock.hpp"
#include "store/crews_store.hpp"
#include "store/store.hpp"

namespace agentworks::server {
namespace {

// The columns read_wakeup() reads, in its order (a macro: the statement cache is keyed by the literal's address).
#define AW_WAKEUP_COLUMNS                                                                                        \
  "SELECT w.wakeup_id, w.account_id, w.agent_id, w.note, w.due_at, w.state, w.created_at, w.updated_at,"        \
  " w.message_id, w.fired_at, w.conversation_id FROM wakeups w "

Wakeup read_wakeup(db::Statement& q) {
  Wakeup w;
  w.wakeup_id = q.text(0);
  w.account_id = q.text(1);
  w.agent_id = q.text(2);
  w.note = q.text(3);
  w.due_at = q.int64(4);
  w.state = q.text(5);
  w.created_at = q.int64(6);
  w.updated_at = q.int64(7);
  w.message_id = q.opt_text(8);
  w.fired_at = q.opt_int64(9);
  w.conversation_id = q.opt_text(10);
  return w;
}

std::optional<Wakeup> wakeup_by_id(Store& store, const std::string& wakeup_id) {
  Q q(store,
      AW_WAKEUP_COLUMNS "WHERE w.wakeup_id = ?");
  q->bind(1, wakeup_id);
  if (!q->step()) return std::nullopt;
  return read_wakeup(*q);
}

// R-W1: the agent's own chat (its child connection) or its person (a login connection of its account). An
// execution acting with a call's secret schedules nothing.
Agent wakeup_agent(Store& store, const Connection& caller, const std::string& agent_name) {
  if (caller.is_execution())
    throw Error(ErrorCode::forbidden, "a function execution cannot schedule wakeups; only an agent's chat or its "
                                      "person can");
  if (agent_name.rfind("crew:", 0) == 0 && caller.is_login()) {  // R-W5: the person sees a Crew agent's wakeups
    const auto agent = own_crew_agent(store, caller, agent_name.substr(5));
    if (!agent)
      throw Error(ErrorCode::not_found, agent_name + " has no wakeups: nobody has talked to its agent yet");
    return *agent;
  }
  Agent agent = store.require_agent(caller, agent_name);
  if (!caller.is_login() && !(caller.agent_id && *caller.agent_id == agent.agent_id))
    throw Error(ErrorCode::forbidden, "a chat schedules wakeups only for its own agent, not for '" + agent.name + "'");
  return agent;
}

Wakeup owned_wakeup(Store& store, const Agent& agent, const std::optional<std::string>& conversation_id,
                    const std::string& wakeup_id) {
  auto w = wakeup_by_id(store, wakeup_id);
  if (!w || w->agent_id != agent.agent_id || (conversation_id && w->conversation_id != conversation_id))
    throw Error(ErrorCode::not_found, "agent '" + agent.name + "' has no wakeup '" + wakeup_id +
                                          "'; list them with agentworks wakeups list --agent " + agent.name);
  w->agent_name = agent.name;
  return *w;
}

std::int64_t due_time(const WakeupRequest& r, std::int64_t now) {
  if (r.after_minutes.has_value() == r.at.has_value())
    throw Error(ErrorCode::bad_request, "give exactly one of after_minutes (1-43200) and at (an RFC 3339 time, "
                                        "e.g. 2026-12-24T09:00:00Z)");
  if (r.after_minutes) {
    if (*r.after_minutes < 1 || *r.after_minutes > kMaxWakeupAheadSeconds / 60)
      throw Error(ErrorCode::bad_request, "after_minutes must be 1-43200 (at most 30 days ahead)");
    return now + *r.after_minutes * 60;
  }
  const auto at = parse_utc_text(*r.at);
  if (!at)
    throw Error(ErrorCode::bad_request, "at must be an RFC 3339 time with a zone, e.g. 2026-12-24T09:00:00Z, not '" +
                                            echo_typed(*r.at) + "'");
  if (*at <= now)
    throw Error(ErrorCode::bad_request, "at " + *r.at + " is not in the future (it is " + utc_text(now) + " now)");
  if (*at - now > kMaxWakeupAheadSeconds)
    throw Error(ErrorCode::bad_request, "at " + *r.at + " is more than 30 days ahead; choose an earlier time");
  return *at;
}

void check_note(const std::string& note) {
  const auto chars = utf8_length(note);
  if (!chars || *chars == 0 || *chars > kMaxWakeupNoteChars || blank_text(note))
    throw Error(ErrorCode::bad_request, "note must be 1-1000 characters of UTF-8 text, not blank: what to check "
                                        "when the wakeup comes");
}

std::string wakeup_text(const Wakeup& w, std::int64_t now, std::int64_t late_after) {
  std::string text = "Wakeup " + w.wakeup_id + " you scheduled at " + utc_text(w.created_at) + " for " +
                     utc_text(w.due_at);
  // R-W4: a wakeup that waited (a paused person, the chat offline) says so.
  if (now - w.due_at > late_after) text += " (late: it is " + utc_text(now) + " now)";
  return text + ": " + w.note;
}

}  // namespace

std::string visible_state(const Wakeup& w, std::int64_t now) {
  if (w.state == "pending" && w.due_at <= now) return "due";
  return w.state;
}

namespace {

Wakeup schedule_for(Store& store, const Agent& agent, const std::optional<std::string>& conversation_id,
                    const WakeupRequest& request, const std::string& scheduled_by) {
  check_note(request.note);
  const std::int64_t t = now();
  const std::int64_t due = due_time(request, t);
  if (request.wakeup_id) {
    Wakeup w = owned_wakeup(store, agent, conversation_id, *request.wakeup_id);
    if (w.state != "pending")
      throw Error(ErrorCode::conflict, "wakeup " + w.wakeup_id + " is " + visible_state(w, t) +
                                           " and cannot be rescheduled; schedule a new one");
    Q q(store, "UPDATE wakeups SET due_at = ?, note = ?, updated_at = ? WHERE wakeup_id = ? AND state = 'pending'");
    q->bind(1, due).bind(2, request.note).bind(3, t).bind(4, w.wakeup_id).run();
    w.due_at = due;
    w.note = request.note;
    w.updated_at = t;
    return w;
  }
  {
    Q q(store, "SELECT count(*) FROM wakeups WHERE agent_id = ? AND state = 'pending'");
    q->bind(1, agent.agent_id);
    if (q->step() && q->int64(0) >= kMaxPendingWakeups)
      throw Error(ErrorCode::limit_reached, "agent '" + agent.name + "' has 20 pending wakeups, the most it may "
                                            "have; cancel one or reschedule it (wakeup_id)");
  }
  Wakeup w;
  w.wakeup_id = new_id("wku");
  w.account_id = agent.account_id;
  w.agent_id = agent.agent_id;
  w.agent_name = agent.name;
  w.note = request.note;
  w.due_at = due;
  w.state = "pending";
  w.created_at = t;
  w.updated_at = t;
  w.conversation_id = conversation_id;
  Q q(store,
      "INSERT INTO wakeups(wakeup_id, account_id, agent_id, note, due_at, state, created_at, updated_at,"
      " scheduled_by, conversation_id) VALUES(?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?)");
  q->bind(1, w.wakeup_id).bind(2, w.account_id).bind(3, w.agent_id).bind(4, w.note).bind(5, w.due_at);
  q->bind(6, t).bind(7, t).bind(8, scheduled_by).bind(9, conversation_id).run();
  return w;
}

Wakeup cancel_for(Store& store, const Agent& agent, const std::optional<std::string>& conversation_id,
                  const std::string& wakeup_id) {
  Wakeup w = owned_wakeup(store, agent, conversation_id, wakeup_id);
  if (w.state == "cancelled") return w;
  if (w.state != "pending")
    throw Error(ErrorCode::conflict, "wakeup " + w.wakeup_id + " is " + w.state +
                                         ": it already prompted the chat (or will), so there is nothing to cancel");
  const std::int64_t t = now();
  Q q(store, "UPDATE wakeups SET state = 'cancelled', updated_at = ? WHERE wakeup_id = ? AND state = 'pending'");
  q->bind(1, t).bind(2, w.wakeup_id).run();
  w.state = "cancelled";
  w.updated_at = t;
  return w;
}

std::vector<Wakeup> list_for(Store& store, const Agent& agent, const std::optional<std::string>& conversation_id) {
  const std::string only = conversation_id.value_or("");  // empty: every conversation's
  std::vector<Wakeup> out;
  {
    Q q(store,
        AW_WAKEUP_COLUMNS "WHERE w.agent_id = ? AND w.state = 'pending' AND (? = '' OR w.conversation_id = ?)"
        " ORDER BY w.due_at, w.wakeup_id");
    q->bind(1, agent.agent_id).bind(2, only).bind(3, only);
    while (q->step()) out.push_back(read_wakeup(*q));
  }
  {
    Q q(store,
        AW_WAKEUP_COLUMNS "WHERE w.agent_id = ? AND w.state <> 'pending' AND (? = '' OR w.conversation_id = ?)"
        " ORDER BY w.updated_at DESC, w.wakeup_id DESC LIMIT 20");
    q->bind(1, agent.agent_id).bind(2, only).bind(3, only);
    while (q->step()) out.push_back(read_wakeup(*q));
  }
  for (auto& w : out) w.agent_name = agent.name;
  return out;
}

// The Crew's agent answering the conversation, which must still be open.
Agent conversation_agent(Store& store, const std::string& conversation_id) {
  auto conv = store.conversation_by_id(conversation_id);
  if (conv) store.expire_if_idle(*conv);
  if (!conv || conv->state != ConversationState::open)
    throw Error(ErrorCode::expired, "this conversation expired, so nothing can wake it");
  const auto agent = store.agent_by_id(conv->target_agent_id);
  if (!agent || !agent->crew_id) throw Error(ErrorCode::not_found, "the conversation's agent is no longer registered");
  return *agent;
}

}  // namespace

Wakeup schedule_wakeup(Store& store, const Connection& caller, const WakeupRequest& request) {
  const Agent agent = wakeup_agent(store, caller, request.agent_name);
  if (agent.crew_id)
    throw Error(ErrorCode::forbidden, "a Crew's agent schedules its wakeups from its own turns, for the conversation "
                                      "it answers; the person lists and cancels them");
  return schedule_for(store, agent, std::nullopt, request, caller.connection_id);
}

Wakeup cancel_wakeup(Store& store, const Connection& caller, const std::string& agent_name,
                     const std::string& wakeup_id) {
  return cancel_for(store, wakeup_agent(store, caller, agent_name), std::nullopt, wakeup_id);
}

WakeupList list_wakeups(Store& store, const Connection& caller, const std::string& agent_name) {
  const Agent agent = wakeup_agent(store, caller, agent_name);
  return WakeupList{agent.name, list_for(store, agent, std::nullopt)};
}

Wakeup schedule_conversation_wakeup(Store& store, const std::string& conversation_id, const WakeupRequest& request,
                                    const std::string& scheduled_by) {
  return schedule_for(store, conversation_agent(store, conversation_id), conversation_id, request, scheduled_by);
}

Wakeup cancel_conversation_wakeup(Store& store, const std::string& conversation_id, const std::string& wakeup_id) {
  return cancel_for(store, conversation_agent(store, conversation_id), conversation_id, wakeup_id);
}

std::vector<Wakeup> list_conversation_wakeups(Store& store, const std::string& conversation_id) {
  return list_for(store, conversation_agent(store, conversation_id), conversation_id);
}

void note_turn_wakeups(Store& store, const std::string& conversation_id, std::int64_t after, std::int64_t up_to,
                       const std::string& state) {
  Q q(store,
      "UPDATE wakeups SET state = ?, updated_at = ? WHERE conversation_id = ? AND state IN ('due', 'offered')"
      " AND message_id IN (SELECT message_id FROM messages WHERE conversation_id = ? AND kind = 'wakeup'"
      " AND inbox_seq > ? AND inbox_seq <= ?)");
  q->bind(1, state).bind(2, now()).bind(3, conversation_id).bind(4, conversation_id).bind(5, after).bind(6, up_to);
  q->run();
}

void set_wakeups_paused(Store& store, const Connection& caller, bool paused) {
  if (!caller.is_login())
    throw Error(ErrorCode::forbidden, "only the person (a login connection) pauses or resumes wakeups");
  {
    Q q(store, "DELETE FROM wakeup_pauses WHERE account_id = ?");
    q->bind(1, caller.account_id).run();
  }
  if (!paused) return;
  Q q(store, "INSERT INTO wakeup_pauses(account_id, paused_at) VALUES(?, ?)");
  q->bind(1, caller.account_id).bind(2, now()).run();
}

bool wakeups_paused(Store& store, const std::string& account_id) {
  Q q(store, "SELECT 1 FROM wakeup_pauses WHERE account_id = ?");
  q->bind(1, account_id);
  return q->step();
}

int fire_due_wakeups(Store& store, std::int64_t t, const std::function<bool(const std::string&)>& receiving,
                     WakeupScan& scan) {
  // Later than one tick and a second of rounding: it waited (paused, or its chat was offline).
  const std::int64_t late_after = store.limits().wakeup_tick_seconds + 1;
  std::vector<Wakeup> due;
  {
    Q q(store,
        AW_WAKEUP_COLUMNS "WHERE w.state = 'pending' AND w.due_at <= ?"
        " AND (w.due_at > ? OR (w.due_at = ? AND w.wakeup_id > ?))"
        " AND NOT EXISTS (SELECT 1 FROM wakeup_pauses p WHERE p.account_id = w.account_id)"
        " ORDER BY w.due_at, w.wakeup_id LIMIT 100");
    q->bind(1, t).bind(2, scan.due_at).bind(3, scan.due_at).bind(4, scan.wakeup_id);
    while (q->step()) due.push_back(read_wakeup(*q));
  }
  static_assert(kWakeupFireBatch == 100, "the LIMIT above");
  // A short page reached the end: the next tick starts over from the oldest due one.
  if (due.size() < static_cast<std::size_t>(kWakeupFireBatch)) {
    scan = WakeupScan{};
  } else {
    scan = WakeupScan{due.back().due_at, due.back().wakeup_id};
  }
  int fired = 0;
  for (auto& w : due) {
    if (!store.agent_by_id(w.agent_id)) {  // unregistered since: nobody to wake
      Q q(store, "UPDATE wakeups SET state = 'cancelled', updated_at = ? WHERE wakeup_id = ? AND state = 'pending'");
      q->bind(1, t).bind(2, w.wakeup_id).run();
      continue;
    }
    if (w.conversation_id) {  // a Crew agent's (R-K2): the server runs its turns, so it never waits for a chat
      auto conv = store.conversation_by_id(*w.conversation_id);
      if (!conv || store.expire_if_idle(*conv) || conv->state != ConversationState::open) {
        Q q(store, "UPDATE wakeups SET state = 'cancelled', updated_at = ? WHERE wakeup_id = ? AND state = 'pending'");
        q->bind(1, t).bind(2, w.wakeup_id).run();  // its conversation expired: nothing left to wake
        continue;
      }
    } else if (!receiving(w.agent_id)) {
      continue;  // R-W4: it waits for its chat and arrives late, once
    }
    const std::string message_id = new_time_ordered_id("msg");
    {
      // R-W2: the conditional update makes it fire once, whichever replica's tick gets here first.
      Q q(store,
          "UPDATE wakeups SET state = 'due', message_id = ?, fired_at = ?, updated_at = ? WHERE wakeup_id = ?"
          " AND state = 'pending'");
      q->bind(1, message_id).bind(2, t).bind(3, t).bind(4, w.wakeup_id).run();
      if (store.sql_changes() != 1) continue;
    }
    const Message m = store.store_notice(
        Notice{w.account_id, w.agent_id, kWakeupInitiator, "wakeup", wakeup_text(w, t, late_after), std::nullopt,
               std::nullopt, message_id, w.conversation_id});
    if (m.message_id.empty()) continue;
    ++fired;
  }
  return fired;
}

void note_wakeups_offered(Store& store, const std::vector<std::string>& message_ids) {
  for (const auto& id : message_ids) {
    Q q(store, "UPDATE wakeups SET state = 'offered', updated_at = ? WHERE message_id = ? AND state = 'due'");
    q->bind(1, now()).bind(2, id).run();
  }
}

void note_wakeup_acknowledged(Store& store, const std::string& message_id) {
  // An acknowledgement proves the wakeup arrived, even after the bridge reported its offer interrupted.
  Q q(store,
      "UPDATE wakeups SET state = 'delivered', updated_at = ? WHERE message_id = ?"
      " AND state IN ('due', 'offered', 'interrupted')");
  q->bind(1, now()).bind(2, message_id).run();
}

int note_wakeups_interrupted(Store& store, const Attachment& attachment, const std::vector<std::string>& message_ids) {
  int n = 0;
  for (const auto& id : message_ids) {
    Q q(store,
        "UPDATE wakeups SET state = 'interrupted', updated_at = ? WHERE message_id = ? AND agent_id = ?"
        " AND state IN ('due', 'offered')");
    q->bind(1, now()).bind(2, id).bind(3, attachment.agent_id).run();
    n += store.sql_changes();
  }
  return n;
}

}  // namespace agentworks::server
