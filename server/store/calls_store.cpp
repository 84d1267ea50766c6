#include "store/calls_store.hpp"

#include "agentworks/error.hpp"
#include "agentworks/random.hpp"
#include "agentworks/sha256.hpp"
#include "clock.hpp"
#include "store/call_notice_text.hpp"
#include "store/store.hpp"

namespace agentworks::server {
namespace {

CallRow call_row(db::Statement& s) {
  CallRow c;
  c.call_id = s.text(0);
  c.crew_id = s.text(1);
  c.caller_account = s.text(2);
  c.caller_conn = s.text(3);
  c.function = s.text(4);
  c.arguments_json = s.text(5);
  c.submission_id = s.opt_text(6);
  c.fingerprint = s.text(7);
  c.status = call_status_column(s.text(8));
  c.progress = s.text(9);
  c.answer = s.opt_text(10);
  c.result_json = s.opt_text(11);
  c.result_file = s.opt_text(12);
  c.error_code = s.opt_text(13);
  c.error_message = s.opt_text(14);
  c.token_hash = s.text(15);
  c.correction = s.int64(16) != 0;
  c.created_at = s.int64(17);
  c.updated_at = s.int64(18);
  c.finished_at = s.opt_int64(19);
  c.next_message = s.int64(20);
  c.dropped_messages = s.int64(21);
  c.next_event = s.int64(22);
  c.files_expired = s.int64(23) == 1;  // kNeverHadFiles: no files, nothing expired
  c.crew_name = s.text(24);
  c.crew_dir = s.text(25);
  c.crew_account = s.text(26);
  c.agent_cli = s.opt_text(27);
  c.agent_session = s.opt_text(28);
  c.agent_version = s.opt_text(29);
  c.cancel_requested_at = s.opt_int64(30);
  c.caller_agent_id = s.opt_text(31);
  c.caller_agent_name = s.opt_text(32);
  c.notify_agent_id = s.opt_text(33);
  c.notify_agent_name = s.opt_text(34);
  c.parent_call_id = s.opt_text(35);
  c.depth = s.int64(36);
  c.notify_conversation_id = s.opt_text(37);
  c.served_by = s.opt_text(38);
  c.declaration_hash = s.opt_text(39);
  return c;
}

// A call_inputs row in the column order of the SELECTs below.
CallInput input_row(db::Statement& s) {
  return CallInput{s.text(0),      s.text(1),      s.text(2),      s.opt_text(3),
                   s.int64(4),     s.opt_int64(5), s.opt_text(6),  s.int64(7) != 0};
}

#define AW_CALL_SELECT                                                                                        \
  "SELECT c.call_id, c.crew_id, c.caller_account, c.caller_conn, c.function, c.arguments, c.submission_id,"   \
  " c.fingerprint, c.status, c.progress, c.answer, c.result, c.result_file, c.error_code, c.error_message,"   \
  " c.token_hash, c.correction, c.created_at, c.updated_at, c.finished_at, c.next_message,"                   \
  " c.dropped_messages, c.next_event, c.files_expired, w.name, w.dir, w.account_id,"                         \
  " c.agent_cli, c.agent_session, c.agent_version, c.cancel_requested_at, c.caller_agent_id, g.name,"        \
  " c.notify_agent_id, n.name, c.parent_call_id, c.depth, c.notify_conversation_id, c.served_by,"            \
  " c.declaration_hash FROM calls c"                                                                              \
  " JOIN crews w ON w.crew_id = c.crew_id"                                                                      \
  " LEFT JOIN agents g ON g.agent_id = c.caller_agent_id LEFT JOIN agents n ON n.agent_id = c.notify_agent_id "

void touch(Store& store, const std::string& call_id) {
  Q q(store, "UPDATE calls SET updated_at = ? WHERE call_id = ?");
  q->bind(1, now()).bind(2, call_id).run();
  store.note_call_changed(call_id);
}

bool terminal_event(const std::string& type) {
  return type == "completed" || type == "failed" || type == "cancelled" || type == "interrupted";
}

}  // namespace

std::optional<CallRow> call_by_submission(Store& store, const std::string& account, const std::string& crew_id,
                                          const std::string& submission_id, std::int64_t retention_seconds) {
  std::optional<CallRow> found;
  {
    Q q(store, AW_CALL_SELECT "WHERE c.caller_account = ? AND c.crew_id = ? AND c.submission_id = ?");
    q->bind(1, account).bind(2, crew_id).bind(3, submission_id);
    if (q->step()) found = call_row(*q);
  }
  if (found && found->created_at + retention_seconds <= now()) {
    // The binding lasted its 7 days: the id is free again, the old record stays readable by its call_id.
    Q q(store, "UPDATE calls SET submission_id = NULL WHERE call_id = ?");
    q->bind(1, found->call_id).run();
    return std::nullopt;
  }
  return found;
}

CallRow insert_call(Store& store, const NewCall& in) {
  const std::string call_id = new_id("call");
  const std::int64_t t = now();
  {
    Q q(store,
        "INSERT INTO calls(call_id, crew_id, caller_account, caller_conn, function, arguments, submission_id,"
        " fingerprint, status, token_hash, created_at, updated_at, runner, lease_expires_at, caller_agent_id,"
        " notify_agent_id, parent_call_id, depth, notify_conversation_id, served_by, declaration_hash)"
        " VALUES(?, ?, ?, ?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    q->bind(1, call_id).bind(2, in.crew_id).bind(3, in.caller_account).bind(4, in.caller_conn).bind(5, in.function);
    q->bind(6, in.arguments_json).bind(7, in.submission_id).bind(8, in.fingerprint).bind(9, sha256_hex(in.token));
    // A served call is no replica's: the lease is its runner's (until it claims the call, the time it has to).
    q->bind(10, t).bind(11, t).bind(13, t + store.limits().call_lease_seconds);
    if (in.served) q->bind_null(12);
    else q->bind(12, store.replica_id());
    q->bind(14, in.caller_agent_id).bind(15, in.notify_agent_id).bind(16, in.parent_call_id).bind(17, in.depth);
    q->bind(18, in.notify_conversation_id).bind(19, in.served ? std::optional<std::string>("") : std::nullopt);
    q->bind(20, in.declaration_hash).run();
  }
  add_call_event(store, call_id, "started", "");
  if (in.served) store.note_crew_work(in.crew_id);
  else store.note_call_started(call_id, in.token);
  return *call_by_id(store, call_id);
}

std::optional<CallRow> call_by_id(Store& store, const std::string& call_id) {
  Q q(store, AW_CALL_SELECT "WHERE c.call_id = ?");
  q->bind(1, call_id);
  if (!q->step()) return std::nullopt;
  return call_row(*q);
}

std::vector<CallMessage> call_messages(Store& store, const std::string& call_id, std::int64_t after, int limit) {
  std::vector<CallMessage> out;
  Q q(store, "SELECT seq, kind, text, created_at FROM call_messages WHERE call_id = ? AND seq > ? ORDER BY seq LIMIT ?");
  q->bind(1, call_id).bind(2, after).bind(3, limit);
  while (q->step()) out.push_back(CallMessage{q->int64(0), q->text(1), q->text(2), q->int64(3)});
  return out;
}

std::vector<CallEvent> call_events(Store& store, const std::string& call_id, std::int64_t after, int limit) {
  std::vector<CallEvent> out;
  Q q(store, "SELECT seq, type, detail, created_at FROM call_events WHERE call_id = ? AND seq > ? ORDER BY seq LIMIT ?");
  q->bind(1, call_id).bind(2, after).bind(3, limit);
  while (q->step()) out.push_back(CallEvent{q->int64(0), q->text(1), q->text(2), q->int64(3)});
  return out;
}

std::vector<CallInput> pending_inputs(Store& store, const std::string& call_id) {
  std::vector<CallInput> out;
  Q q(store,
      "SELECT request_id, call_id, question, answer, asked_at, answered_at, schema, withdrawn FROM call_inputs"
      " WHERE call_id = ? AND answer IS NULL AND withdrawn = 0 ORDER BY asked_at, request_id");
  q->bind(1, call_id);
  while (q->step()) out.push_back(input_row(*q));
  return out;
}

std::optional<CallInput> call_input(Store& store, const std::string& call_id, const std::string& request_id) {
  Q q(store,
      "SELECT request_id, call_id, question, answer, asked_at, answered_at, schema, withdrawn FROM call_inputs"
      " WHERE call_id = ? AND request_id = ?");
  q->bind(1, call_id).bind(2, request_id);
  if (!q->step()) return std::nullopt;
  return input_row(*q);
}

// Past the limit (or no such call: then nothing matches): the last slot is one "dropped" message whose text counts
// what did not fit.
void add_dropped_call_messages(Store& store, const std::string& call_id, std::int64_t n) {
  Q d(store, "UPDATE calls SET dropped_messages = dropped_messages + ?, updated_at = ? WHERE call_id = ?");
  d->bind(1, n).bind(2, now()).bind(3, call_id).run();
  if (store.sql_changes() == 0) return;
  Q u(store,
      "UPDATE call_messages SET text = (SELECT dropped_messages FROM calls WHERE call_id = ?1) || ' more messages"
      " were not kept (the limit is 10,000 per call)' WHERE call_id = ?1 AND seq = ?2");
  u->bind(1, call_id).bind(2, kMaxCallMessages - 1).run();
  store.note_call_changed(call_id);
}

// One round trip claims the slot and touches the call (a chatty execution writes thousands of these, and on a
// PostgreSQL store every statement is a round trip).
ExplicitReply explicit_reply(Store& store, const std::string& call_id) {
  Q q(store, "SELECT sent_answer, reply_state FROM calls WHERE call_id = ?");
  q->bind(1, call_id);
  ExplicitReply r;
  if (!q->step()) return r;
  r.sent = q->opt_text(0);
  r.declined = q->opt_text(1).value_or("") == "no_reply";
  return r;
}

void record_sent_message(Store& store, const std::string& call_id, const std::string& text) {
  append_call_message(store, call_id, "message", text);
  Q q(store, "UPDATE calls SET sent_answer = ?, reply_state = 'sent', updated_at = ? WHERE call_id = ?");
  q->bind(1, text).bind(2, now()).bind(3, call_id).run();
  store.note_call_changed(call_id);
}

void record_no_reply(Store& store, const std::string& call_id, const std::string& reason) {
  if (explicit_reply(store, call_id).sent)
    throw Error(ErrorCode::conflict, "you already sent a message with send_message: it is this call's answer, so "
                                     "there is nothing to decline");
  {
    Q q(store, "UPDATE calls SET reply_state = 'no_reply', updated_at = ? WHERE call_id = ?");
    q->bind(1, now()).bind(2, call_id).run();
  }
  add_call_event(store, call_id, "no_reply", reason);
}

void append_call_message(Store& store, const std::string& call_id, const std::string& kind, const std::string& text) {
  std::int64_t next = 0;
  bool claimed = false;
  {
    Q q(store,
        "UPDATE calls SET next_message = next_message + 1, updated_at = ? WHERE call_id = ? AND next_message < ?"
        " RETURNING next_message - 1");
    q->bind(1, now()).bind(2, call_id).bind(3, kMaxCallMessages);
    if (q->step()) {
      claimed = true;
      next = q->int64(0);
    }
    q->run();  // SQLite finishes the UPDATE when RETURNING's rows are read to the end
  }
  if (!claimed) {
    add_dropped_call_messages(store, call_id, 1);
    return;
  }
  std::string body = text.size() > kMaxCallMessageBytes ? text.substr(0, kMaxCallMessageBytes) : text;
  std::string k = kind;
  if (next == kMaxCallMessages - 1) {
    k = "dropped";
    body = "1 more messages were not kept (the limit is 10,000 per call)";
    Q d(store, "UPDATE calls SET dropped_messages = 1 WHERE call_id = ?");
    d->bind(1, call_id).run();
  }
  Q q(store, "INSERT INTO call_messages(call_id, seq, kind, text, created_at) VALUES(?, ?, ?, ?, ?)");
  q->bind(1, call_id).bind(2, next).bind(3, k).bind(4, body).bind(5, now()).run();
  store.note_call_changed(call_id);
}

void set_call_progress(Store& store, const std::string& call_id, const std::string& progress) {
  Q q(store, "UPDATE calls SET progress = ?, updated_at = ? WHERE call_id = ?");
  q->bind(1, progress.size() > kMaxCallMessageBytes ? progress.substr(0, kMaxCallMessageBytes) : progress);
  q->bind(2, now()).bind(3, call_id).run();
  store.note_call_changed(call_id);
}

void add_call_event(Store& store, const std::string& call_id, const std::string& type, const std::string& detail) {
  std::int64_t next = 0;
  {
    Q q(store, "SELECT next_event FROM calls WHERE call_id = ?");
    q->bind(1, call_id);
    if (!q->step()) return;
    next = q->int64(0);
  }
  if (next >= kMaxCallEvents - 1 && !terminal_event(type)) return;  // the last slot is kept for the outcome
  {
    Q q(store, "INSERT INTO call_events(call_id, seq, type, detail, created_at) VALUES(?, ?, ?, ?, ?)");
    q->bind(1, call_id).bind(2, next).bind(3, type).bind(4, detail.substr(0, kMaxCallMessageBytes)).bind(5, now()).run();
  }
  Q u(store, "UPDATE calls SET next_event = next_event + 1 WHERE call_id = ?");
  u->bind(1, call_id).run();
  touch(store, call_id);
}

void set_call_agent(Store& store, const std::string& call_id, const std::string& cli, const std::string& session) {
  Q q(store, "UPDATE calls SET agent_cli = ?, agent_session = ? WHERE call_id = ?");
  q->bind(1, cli).bind(2, session.empty() ? std::nullopt : std::optional<std::string>(session)).bind(3, call_id).run();
  touch(store, call_id);
}

void set_call_agent_version(Store& store, const std::string& call_id, const std::string& version) {
  Q q(store, "UPDATE calls SET agent_version = ? WHERE call_id = ?");
  q->bind(1, version).bind(2, call_id).run();
  touch(store, call_id);
}

void mark_correction(Store& store, const std::string& call_id) {
  Q q(store, "UPDATE calls SET correction = 1 WHERE call_id = ?");
  q->bind(1, call_id).run();
  touch(store, call_id);
}

void finish_call(Store& store, const std::string& call_id, const CallOutcome& o) {
  {
    Q q(store,
        "UPDATE calls SET status = ?, answer = ?, result = ?, result_file = ?, error_code = ?, error_message = ?,"
        " finished_at = ? WHERE call_id = ? AND status IN ('running', 'waiting_input')");
    q->bind(1, state_text(o.status)).bind(2, o.answer).bind(3, o.result_json).bind(4, o.result_file).bind(5, o.error_code);
    q->bind(6, o.error_message).bind(7, now()).bind(8, call_id).run();
    if (store.sql_changes() == 0) return;  // already finished: an outcome is recorded once
  }
  add_call_event(store, call_id, state_text(o.status), o.error_code.value_or(""));
  // R-D4: a parent's end ends what its execution started.
  for (const auto& child : open_children(store, call_id)) request_cancel(store, child, "parent call ended");
  // R-D2: the notice commits with the outcome it describes, so it is written exactly once.
  const auto call = call_by_id(store, call_id);
  if (call && call->notify_agent_id)
    store.store_notice(Notice{call->caller_account, *call->notify_agent_id, call_id, "call_outcome",
                              call_outcome_text(*call), call_id, state_text(call->status), std::nullopt,
                              call->notify_conversation_id});
}

void record_report(Store& store, const std::string& call_id, const agentworks::functions::ExecutionReport& report) {
  if (report.agent) set_call_agent(store, call_id, *report.agent, report.session);
  if (report.agent_version) set_call_agent_version(store, call_id, *report.agent_version);
  if (report.correction) mark_correction(store, call_id);
  for (const auto& m : report.messages) append_call_message(store, call_id, m.kind, m.text);
  if (report.dropped > 0) add_dropped_call_messages(store, call_id, report.dropped);
  if (report.progress) set_call_progress(store, call_id, *report.progress);
  for (const auto& e : report.events) add_call_event(store, call_id, e.kind, e.text);
}

CallOutcome outcome_of(const agentworks::functions::ExecutionOutcome& o) {
  using Status = agentworks::functions::ExecutionOutcome::Status;
  CallOutcome out;
  switch (o.status) {
    case Status::completed: out.status = CallStatus::completed; break;
    case Status::failed: out.status = CallStatus::failed; break;
    case Status::cancelled: out.status = CallStatus::cancelled; break;
  }
  out.answer = o.answer;
  out.result_json = o.result_json;
  out.result_file = o.result_file;
  out.error_code = o.error_code;
  out.error_message = o.error_message;
  return out;
}

CallInput add_call_input(Store& store, const std::string& call_id, const std::string& question,
                         const std::optional<std::string>& schema_json) {
  CallInput in;
  in.request_id = new_id("req");
  in.call_id = call_id;
  in.question = question;
  in.asked_at = now();
  in.schema_json = schema_json;
  // A question asked once the call is being cancelled is withdrawn as it is asked: nobody is to answer it.
  {
    Q q(store,
        "INSERT INTO call_inputs(request_id, call_id, question, asked_at, schema, withdrawn) VALUES(?, ?, ?, ?, ?,"
        " COALESCE((SELECT CASE WHEN cancel_requested_at IS NULL THEN 0 ELSE 1 END FROM calls WHERE call_id = ?), 0))");
    q->bind(1, in.request_id).bind(2, call_id).bind(3, question).bind(4, in.asked_at).bind(5, schema_json);
    q->bind(6, call_id).run();
  }
  {
    Q q(store,
        "UPDATE calls SET status = 'waiting_input' WHERE call_id = ? AND status = 'running'"
        " AND cancel_requested_at IS NULL");
    q->bind(1, call_id).run();
  }
  add_call_event(store, call_id, "input_requested", in.request_id);
  const auto call = call_by_id(store, call_id);
  if (call && call->notify_agent_id && !call->cancel_requested_at)
    store.store_notice(Notice{call->caller_account, *call->notify_agent_id, call_id, "call_question",
                              call_question_text(*call, in), call_id, state_text(call->status), std::nullopt,
                              call->notify_conversation_id});
  return in;
}

void answer_call_input(Store& store, const std::string& call_id, const std::string& request_id,
                       const std::string& answer) {
  const auto in = call_input(store, call_id, request_id);
  if (!in) throw Error(ErrorCode::not_found, "no question " + request_id + " on this call; `functions call-status` lists pending_inputs");
  if (in->answer) throw Error(ErrorCode::conflict, "question " + request_id + " is already answered");
  if (in->withdrawn)
    throw Error(ErrorCode::conflict, "question " + request_id + " was withdrawn: the call is being cancelled");
  {
    Q q(store, "UPDATE call_inputs SET answer = ?, answered_at = ? WHERE request_id = ?");
    q->bind(1, answer).bind(2, now()).bind(3, request_id).run();
  }
  if (pending_inputs(store, call_id).empty()) {
    Q q(store, "UPDATE calls SET status = 'running' WHERE call_id = ? AND status = 'waiting_input'");
    q->bind(1, call_id).run();
  }
  add_call_event(store, call_id, "input_answered", request_id);
}

bool request_cancel(Store& store, const std::string& call_id, const std::string& by) {
  {
    Q q(store,
        "UPDATE calls SET cancel_requested_at = ?, cancel_requested_by = ?, status = 'running', updated_at = ?"
        " WHERE call_id = ? AND status IN ('running', 'waiting_input') AND cancel_requested_at IS NULL");
    const std::int64_t t = now();
    q->bind(1, t).bind(2, by).bind(3, t).bind(4, call_id).run();
    if (store.sql_changes() == 0) return false;
  }
  {
    Q q(store, "UPDATE call_inputs SET withdrawn = 1 WHERE call_id = ? AND answer IS NULL");
    q->bind(1, call_id).run();
  }
  add_call_event(store, call_id, "cancel_requested", by);
  store.note_call_cancel(call_id);
  return true;
}

std::vector<std::string> cancel_requested_calls(Store& store) {
  std::vector<std::string> ids;
  Q q(store,
      "SELECT call_id FROM calls WHERE status IN ('running', 'waiting_input') AND runner = ?"
      " AND cancel_requested_at IS NOT NULL");
  q->bind(1, store.replica_id());
  while (q->step()) ids.push_back(q->text(0));
  return ids;
}

std::vector<std::string> open_children(Store& store, const std::string& parent_call_id) {
  std::vector<std::string> ids;
  Q q(store, "SELECT call_id FROM calls WHERE parent_call_id = ? AND status IN ('running', 'waiting_input')");
  q->bind(1, parent_call_id);
  while (q->step()) ids.push_back(q->text(0));
  return ids;
}

std::vector<std::string> interrupt_open_calls(Store& store, OpenCalls which) {
  std::vector<std::string> ids;
  if (which == OpenCalls::all) {
    // A served call runs on its runner's computer, not in the process that stopped: its lease decides.
    Q q(store, "SELECT call_id FROM calls WHERE status IN ('running', 'waiting_input') AND served_by IS NULL");
    while (q->step()) ids.push_back(q->text(0));
  } else if (which == OpenCalls::lapsed_served) {
    Q q(store,
        "SELECT call_id FROM calls WHERE status IN ('running', 'waiting_input') AND served_by IS NOT NULL"
        " AND lease_expires_at < ?");
    q->bind(1, now());
    while (q->step()) ids.push_back(q->text(0));
  } else if (which == OpenCalls::this_replica) {
    Q q(store, "SELECT call_id FROM calls WHERE status IN ('running', 'waiting_input') AND runner = ?");
    q->bind(1, store.replica_id());
    while (q->step()) ids.push_back(q->text(0));
  } else {
    Q q(store,
        "SELECT call_id FROM calls WHERE status IN ('running', 'waiting_input') AND (runner IS NULL OR runner != ?)"
        " AND (lease_expires_at IS NULL OR lease_expires_at < ?)");
    q->bind(1, store.replica_id()).bind(2, now());
    while (q->step()) ids.push_back(q->text(0));
  }
  for (const auto& id : ids) {
    const auto row = call_by_id(store, id);
    CallOutcome o;
    o.status = CallStatus::interrupted;
    o.error_code = "interrupted";
    if (row && row->served_by && row->served_by->empty())
      o.error_message = "its Crew's runner did not take it in time (its computer went offline); it never ran";
    else if (row && row->served_by)
      o.error_message = "its Crew's runner stopped renewing its lease while it ran (the computer serving the Crew went "
                        "offline); its saved messages remain, and it is not started again (call again with a new "
                        "submission_id to run it anew)";
    else
      o.error_message = "the server (or its replica) stopped while this call ran; its saved messages and files remain, "
                        "and it is not started again (call again with a new submission_id to run it anew)";
    finish_call(store, id, o);
  }
  return ids;
}

std::vector<std::string> finished_calls_with_files(Store& store, const std::string& crew_id) {
  std::vector<std::string> out;
  Q q(store,
      "SELECT call_id FROM calls WHERE crew_id = ? AND files_expired = 0 AND status NOT IN ('running', 'waiting_input')");
  q->bind(1, crew_id);
  while (q->step()) out.push_back(q->text(0));
  return out;
}

void mark_files_gone(Store& store, const std::string& call_id, bool expired) {
  Q q(store, "UPDATE calls SET files_expired = ? WHERE call_id = ?");
  q->bind(1, expired ? 1 : kNeverHadFiles).bind(2, call_id).run();
}

void renew_call_leases(Store& store) {
  Q q(store, "UPDATE calls SET lease_expires_at = ? WHERE runner = ? AND status IN ('running', 'waiting_input')");
  q->bind(1, now() + store.limits().call_lease_seconds).bind(2, store.replica_id()).run();
}

}  // namespace agentworks::server
