// Runs accepted function calls (R-F2, R-F5): after the commit that made a call durable as `running`, it starts
// the call's execution in the call's own folder, turns stderr lines into execution messages, enforces the
// timeout, checks the output contract (one correction turn), and records exactly one terminal outcome.
// A call is started only from a commit that created it, so nothing is ever run twice.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "store/calls_store.hpp"
#include "store/store.hpp"

struct event;
struct event_base;

namespace agentworks::server::functions {

class Execution;
struct ExecutionEnd;

struct RunnerConfig {
  std::string keeper;      // agentworks-keeper (beside agentworks-server)
  std::string server_url;  // AGENTWORKS_SERVER for `agentworks functions ask`
};

class CallRunner {
 public:
  CallRunner(event_base* base, Store& store, std::function<void()> schedule_commit, RunnerConfig config);
  ~CallRunner();  // terminates every execution (the keepers kill their trees)
  CallRunner(const CallRunner&) = delete;
  CallRunner& operator=(const CallRunner&) = delete;

  // After every successful group commit.
  void on_committed(const StoreEvents& events);
  std::size_t running() const { return running_.size(); }

  struct Running;

 private:
  void start(const std::string& call_id, const std::string& token);
  void start_turn(Running& r, const std::optional<std::string>& correction);
  void on_line(Running& r, const std::string& line);
  void on_end(const std::string& call_id, int turn, const ExecutionEnd& end);
  void conclude(Running& r, const ExecutionEnd& end, const std::string& output);
  void record_outcome(const std::string& call_id, const CallOutcome& outcome);
  bool write(const char* what, const std::function<void()>& f);
  void retry_outcomes();
  static void on_timeout(int fd, short what, void* arg);
  static void on_cleanup(int fd, short what, void* arg);
  static void on_retry(int fd, short what, void* arg);

  event_base* base_;
  Store& store_;
  std::function<void()> schedule_commit_;
  RunnerConfig config_;
  std::unordered_map<std::string, std::unique_ptr<Running>> running_;
  std::vector<std::unique_ptr<Execution>> retired_;  // ended executions, freed outside their callbacks
  std::unordered_map<std::string, std::unique_ptr<CallOutcome>> unconfirmed_;  // outcomes not yet committed
  event* cleanup_ev_ = nullptr;
  event* retry_ev_ = nullptr;
};

}  // namespace agentworks::server::functions
