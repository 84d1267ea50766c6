// Runs accepted function calls (R-F2, R-F5): after the commit that made a call durable as `running`, it starts
// the call's execution in the call's own folder (a command, or a headless Claude Code / Codex session whose
// session id is committed before it starts), turns its output into execution messages, enforces the timeout and
// the idle timeout, checks the output contract (one correction turn, in the same agent session), and records
// exactly one terminal outcome. A call is started only from a commit that created it, so nothing is run twice.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "runner/sweep_worker.hpp"
#include "store/calls_store.hpp"
#include "store/store.hpp"

struct event;
struct event_base;

namespace agentworks::server::functions {

class Execution;
struct ExecutionEnd;
struct ExecutionSpec;

struct RunnerConfig {
  std::string keeper;          // agentworks-keeper (beside agentworks-server)
  std::string server_url;      // AGENTWORKS_SERVER for `agentworks functions ask`
  std::string server_ca_file;  // AGENTWORKS_SERVER_CA_FILE: the server's own certificate when it serves TLS
  std::string agentworks_cli;  // `agentworks`, the agent executions' MCP server ("" when not found)
};

class CallRunner {
 public:
  CallRunner(event_base* base, Store& store, std::function<void()> schedule_commit, RunnerConfig config);
  ~CallRunner();  // terminates every execution (the keepers kill their trees)
  CallRunner(const CallRunner&) = delete;
  CallRunner& operator=(const CallRunner&) = delete;

  // After every successful group commit.
  void on_committed(const StoreEvents& events);
  // Calls asked to end (R-D3), from a commit here or another replica's notice: those this replica runs have their
  // trees killed and end `cancelled` once the keeper reports the tree gone (the slot is held until then).
  void cancel(const std::vector<std::string>& call_ids);
  std::size_t running() const { return running_.size(); }

  struct Running;

 private:
  void start(const std::string& call_id, const std::string& token);
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
  void record_outcome(const std::string& call_id, const CallOutcome& outcome);
  bool write(const char* what, const std::function<void()>& f);
  void sweep_outputs(const Crew& crew);
  void retry_outcomes();
  static void on_timeout(int fd, short what, void* arg);
  static void on_idle(int fd, short what, void* arg);
  static void on_cleanup(int fd, short what, void* arg);
  static void on_retry(int fd, short what, void* arg);
  static void on_cancel_poll(int fd, short what, void* arg);

  event_base* base_;
  Store& store_;
  std::function<void()> schedule_commit_;
  RunnerConfig config_;
  std::unordered_map<std::string, std::unique_ptr<Running>> running_;
  std::vector<std::unique_ptr<Execution>> retired_;  // ended executions, freed outside their callbacks
  std::unordered_map<std::string, std::unique_ptr<CallOutcome>> unconfirmed_;  // outcomes not yet committed
  std::unordered_map<std::string, std::string> versions_;  // agent CLI (path, mtime, size) -> its --version
  std::vector<std::unique_ptr<Execution>> probes_;         // running `--version` probes
  event* cleanup_ev_ = nullptr;
  event* retry_ev_ = nullptr;
  event* cancel_poll_ev_ = nullptr;  // a lost replica notice delays a cancel by at most its period
  std::unique_ptr<SweepWorker> sweeper_;  // destroyed first: its thread stops before the rest goes
};

}  // namespace agentworks::server::functions
