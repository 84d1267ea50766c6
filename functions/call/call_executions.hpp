// Runs function calls (R-F2, R-F5) for one host: each call in its own folder (a command, or a headless Claude Code
// / Codex session whose session id is recorded before it starts), its output turned into execution messages, the
// timeout and the idle timeout enforced, the output contract checked (one correction turn, in the same agent
// session; R-X7's one nudge of a silent explicit function), and exactly one outcome handed to the host's ledger.
// The host decides what to start (only from a record that made the call durable, so nothing runs twice) and
// makes what it is told durable (call/call_ledger.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "call/call_ledger.hpp"
#include "declaration/declaration.hpp"
#include "process/call_environment.hpp"

struct event;
struct event_base;

namespace agentworks::functions {

class Execution;
struct ExecutionEnd;
struct ExecutionSpec;

// One admitted call, as its host resolved it.
struct CallJob {
  std::string call_id;
  std::string token;  // AGENTWORKS_CALL_TOKEN: the execution's own secret
  std::string crew_dir;
  std::string arguments_json;
  FunctionDecl function;
};

class CallExecutions {
 public:
  CallExecutions(event_base* base, CallLedger& ledger, RunnerConfig config);
  ~CallExecutions();  // terminates every execution (the keepers kill their trees); no outcome is reported
  CallExecutions(const CallExecutions&) = delete;
  CallExecutions& operator=(const CallExecutions&) = delete;

  // Starts the call (once: a call already running is left alone). A call that cannot start is finished at once
  // as `spawn_failed`.
  void start(CallJob job);
  // What the ledger recorded for the call is durable now: a Claude call whose session id waited for it starts.
  void recorded(const std::string& call_id);
  // Calls asked to end (R-D3): their trees are killed and they end `cancelled` once the keeper reports the tree
  // gone (the call holds its slot until then). Calls not running here are ignored.
  void cancel(const std::vector<std::string>& call_ids);
  // Calls the host no longer holds (a runner's lease lapsed, or the server settled them): their trees are killed
  // and nothing more is reported for them, not even an outcome.
  void abandon(const std::vector<std::string>& call_ids);
  std::size_t size() const { return running_.size(); }
  std::vector<std::string> running_ids() const;

  struct Running;

 private:
  void start_turn(Running& r, const std::optional<std::string>& correction);
  ExecutionSpec turn_spec(Running& r, const std::optional<std::string>& correction);
  void on_line(Running& r, const std::string& line);
  void write_dropped(Running& r);  // the lines counted past the message limit, and the last progress
  void on_event_line(Running& r, const std::string& line);
  void arm_idle(Running& r);
  void probe_version(Running& r);
  void finish_probe(const std::string& key, const std::string& call_id, std::size_t index);
  void on_end(const std::string& call_id, int turn, const ExecutionEnd& end);
  void conclude(Running& r, const ExecutionEnd& end, const std::string& output);
  bool report(const std::string& call_id, const char* what, const ExecutionReport& report);
  static void on_timeout(int fd, short what, void* arg);
  static void on_idle(int fd, short what, void* arg);
  void idle_checked(const std::string& call_id, std::uint64_t armed, bool waiting);
  static void on_cleanup(int fd, short what, void* arg);

  event_base* base_;
  CallLedger& ledger_;
  RunnerConfig config_;
  std::unordered_map<std::string, std::unique_ptr<Running>> running_;
  std::vector<std::unique_ptr<Execution>> retired_;  // ended executions, freed outside their callbacks
  std::unordered_map<std::string, std::string> versions_;  // agent CLI (path, mtime, size) -> its --version
  std::vector<std::unique_ptr<Execution>> probes_;         // running `--version` probes
  event* cleanup_ev_ = nullptr;
};

}  // namespace agentworks::functions
