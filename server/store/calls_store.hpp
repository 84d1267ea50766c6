// Function calls as durable rows: the call, its execution messages and events, and its pending questions
// (R-F1..R-F6). Every change notes the call as changed so the commit wakes its waiters.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "call/call_ledger.hpp"
#include "store/function_records.hpp"

namespace agentworks::server {

class Store;

using agentworks::functions::kMaxCallMessages;  // the execution library owns the limit
inline constexpr std::size_t kMaxCallMessageBytes = 4000;
inline constexpr std::int64_t kMaxCallEvents = 200;

struct NewCall {
  std::string crew_id;
  std::string caller_account;
  std::string caller_conn;
  std::string function;
  std::string arguments_json;
  std::optional<std::string> submission_id;
  std::string fingerprint;  // function + arguments: a repeated submission_id must match it
  std::string token;        // the execution's per-call secret: only its hash is stored
  std::optional<std::string> caller_agent_id;  // a chat's call: its agent (R-D1)
  std::optional<std::string> notify_agent_id;  // told of the call's questions and outcome (R-D2)
  std::optional<std::string> parent_call_id;   // an execution's call (R-D4)
  std::optional<std::string> notify_conversation_id;  // a Crew agent's call: its notices wake this conversation
  std::int64_t depth = 1;
  // R-R1: a served Crew's call waits for its runner's claim (within the lease) instead of starting here; it keeps
  // the hash of the declaration it was admitted under (R-R2).
  bool served = false;
  std::optional<std::string> declaration_hash;
};

// The call bound to (account, Crew, submission_id) within `retention_seconds`; an older binding is released.
std::optional<CallRow> call_by_submission(Store& store, const std::string& account, const std::string& crew_id,
                                          const std::string& submission_id, std::int64_t retention_seconds);
// Inserts a running call with its `started` event; the commit starts its execution.
CallRow insert_call(Store& store, const NewCall& in);
std::optional<CallRow> call_by_id(Store& store, const std::string& call_id);

std::vector<CallMessage> call_messages(Store& store, const std::string& call_id, std::int64_t after, int limit);
std::vector<CallEvent> call_events(Store& store, const std::string& call_id, std::int64_t after, int limit);
std::vector<CallInput> pending_inputs(Store& store, const std::string& call_id);
std::optional<CallInput> call_input(Store& store, const std::string& call_id, const std::string& request_id);

// Execution messages: cut at kMaxCallMessageBytes; past kMaxCallMessages one "dropped" message counts the rest.
void append_call_message(Store& store, const std::string& call_id, const std::string& kind, const std::string& text);
// `n` more messages past the limit, counted in one write (a flooding execution is not a write per line).
void add_dropped_call_messages(Store& store, const std::string& call_id, std::int64_t n);
void set_call_progress(Store& store, const std::string& call_id, const std::string& progress);
// R-X7: what an agent function with explicit communication said: its last send_message (the call's answer) or its
// no_reply. The messages are also execution messages of kind "message" (the record), the decline a `no_reply`
// event.
struct ExplicitReply {
  std::optional<std::string> sent;
  bool declined = false;
};
inline constexpr std::size_t kMaxSentMessageChars = 12000;
ExplicitReply explicit_reply(Store& store, const std::string& call_id);
void record_sent_message(Store& store, const std::string& call_id, const std::string& text);
// Refused (conflict) once the execution sent a message: that message is its answer.
void record_no_reply(Store& store, const std::string& call_id, const std::string& reason);

// Lifecycle events; past kMaxCallEvents only terminal ones are still recorded.
void add_call_event(Store& store, const std::string& call_id, const std::string& type, const std::string& detail);
void mark_correction(Store& store, const std::string& call_id);
// An agent execution's CLI ("claude", "codex") and its session (thread) id, stored before or as it starts.
void set_call_agent(Store& store, const std::string& call_id, const std::string& cli, const std::string& session);
void set_call_agent_version(Store& store, const std::string& call_id, const std::string& version);

struct CallOutcome {
  CallStatus status = CallStatus::failed;  // completed, failed, cancelled or interrupted
  std::optional<std::string> answer;
  std::optional<std::string> result_json;
  std::optional<std::string> result_file;
  std::optional<std::string> error_code;
  std::optional<std::string> error_message;
};
void finish_call(Store& store, const std::string& call_id, const CallOutcome& outcome);
// What an execution reported (the execution library's one write), in its order: wherever the execution ran.
void record_report(Store& store, const std::string& call_id, const agentworks::functions::ExecutionReport& report);
CallOutcome outcome_of(const agentworks::functions::ExecutionOutcome& outcome);

// A question from the execution (with the JSON Schema its answer must satisfy, if any): the call is waiting_input
// until every question is answered.
CallInput add_call_input(Store& store, const std::string& call_id, const std::string& question,
                         const std::optional<std::string>& schema_json = std::nullopt);
// conflict when already answered, not_found when unknown.
void answer_call_input(Store& store, const std::string& call_id, const std::string& request_id,
                       const std::string& answer);

// Asks an open call to end (R-D3): its pending questions are withdrawn and the replica that runs it kills its
// tree, then records `cancelled`. False when the call has ended or a cancel was already asked (nothing changes).
bool request_cancel(Store& store, const std::string& call_id, const std::string& by);
// The open calls this replica runs that were asked to end (another replica may have taken the request).
std::vector<std::string> cancel_requested_calls(Store& store);
// The open calls a call's execution made (R-D4).
std::vector<std::string> open_children(Store& store, const std::string& parent_call_id);

// Which open calls interrupt_open_calls ends.
enum class OpenCalls {
  all,            // SQLite at start: one server process owns the store, so any open call was its predecessor's
  this_replica,   // at shutdown: the calls this process runs
  lapsed_leases,  // PostgreSQL: calls whose replica (or runner) stopped renewing their lease (it died)
  lapsed_served,  // SQLite: served calls whose runner stopped renewing their lease (R-R3)
};
// Open calls become interrupted (never restarted). Returns their ids.
std::vector<std::string> interrupt_open_calls(Store& store, OpenCalls which);
// Extends the lease of every open call this replica runs by Limits::call_lease_seconds.
void renew_call_leases(Store& store);
// Finished calls of a Crew whose folders still exist (cleanup candidates).
std::vector<std::string> finished_calls_with_files(Store& store, const std::string& crew_id);
// calls.files_expired: 0 while the folder may hold files, 1 once the sweep removed it, kNeverHadFiles when the
// call ended before its folder was made (it reads as no files, never `expired`).
inline constexpr std::int64_t kNeverHadFiles = 2;
void mark_files_gone(Store& store, const std::string& call_id, bool expired);

}  // namespace agentworks::server
