// What one call's execution tells its host, and the little it asks of it. The host owns the call's record: the
// server writes a report into its store (one transaction), a bridge serving a Crew would send it to the server
// (docs/decisions/0009-crew-runners.md). The execution never knows which.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace agentworks::functions {

// A call keeps at most this many execution messages; past it the execution only counts the lines (R-F3).
inline constexpr std::int64_t kMaxCallMessages = 10000;

// One write: everything an event of the execution changed, recorded together or not at all.
struct ExecutionReport {
  struct Entry {
    std::string kind;
    std::string text;
  };
  std::optional<std::string> agent;          // the agent CLI ("claude" or "codex") running the call, with `session`
  std::string session;                       // Claude's chosen before its start; Codex's once it announced it
  std::optional<std::string> agent_version;  // the agent CLI's version
  bool correction = false;                   // the correction turn (R-F5) starts
  std::vector<Entry> messages;               // execution messages: kind and text
  std::int64_t dropped = 0;                  // lines past kMaxCallMessages, counted, not kept
  std::optional<std::string> progress;       // the call's latest progress line
  std::vector<Entry> events;                 // call events: kind and detail
};

// How an execution ended. `interrupted` is never the execution's own word: it is what its host's lease sweep
// records when the host died.
struct ExecutionOutcome {
  enum class Status { completed, failed, cancelled };
  Status status = Status::failed;
  std::optional<std::string> answer;
  std::optional<std::string> result_json;
  std::optional<std::string> result_file;  // a result too large to inline, left in the call's folder
  std::optional<std::string> error_code;
  std::optional<std::string> error_message;
};

// R-X7: what an explicit function said: its last send_message (its answer) or its no_reply.
struct ExplicitAnswer {
  std::optional<std::string> sent;
  bool declined = false;
};

class CallLedger {
 public:
  virtual ~CallLedger() = default;
  // Records `report` for the call; false when it could not (logged by the host as `what`). Returns before the
  // record is durable: the host calls CallExecutions::recorded(call_id) once it is.
  virtual bool record(const std::string& call_id, const char* what, const ExecutionReport& report) = 0;
  // The reads answer through a callback, on the host's loop, at once or later (a runner asks its server): the
  // execution never blocks on them. The callback may run before the call returns.
  // The explicit function's answer so far; nullopt when it cannot be read now.
  using ExplicitAnswerHandler = std::function<void(std::optional<ExplicitAnswer>)>;
  virtual void explicit_answer(const std::string& call_id, ExplicitAnswerHandler done) = 0;
  // True while the call waits for an answer to its question (its caller's turn: not a stall); false when unknown.
  using WaitingHandler = std::function<void(bool waiting)>;
  virtual void waiting_input(const std::string& call_id, WaitingHandler done) = 0;
  // The call's one outcome; from here on the host alone makes it durable (and retries until it is).
  virtual void finished(const std::string& call_id, const ExecutionOutcome& outcome) = 0;
};

}  // namespace agentworks::functions
