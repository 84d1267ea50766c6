// The server as the host of its Crews' function calls (R-F2, R-F5): after the commit that made a call durable as
// `running`, it resolves the call's Crew and declaration and hands it to the execution library
// (call/call_executions.hpp); what the execution reports is written to the store, its outcome retried until a
// commit holds it. A call is started only from a commit that created it, so nothing is run twice. It also carries
// out cancels (from a commit here or another replica's notice) and the sweep of old call folders (R-F6).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "call/call_executions.hpp"
#include "call/call_ledger.hpp"
#include "runner/sweep_worker.hpp"
#include "store/calls_store.hpp"
#include "store/store.hpp"

struct event;
struct event_base;

namespace agentworks::server::functions {

// The server's side of function calls builds on the execution library (functions/).
using namespace agentworks::functions;

class CallRunner final : private agentworks::functions::CallLedger {
 public:
  CallRunner(event_base* base, Store& store, std::function<void()> schedule_commit,
             agentworks::functions::RunnerConfig config);
  ~CallRunner() override;  // terminates every execution (the keepers kill their trees)
  CallRunner(const CallRunner&) = delete;
  CallRunner& operator=(const CallRunner&) = delete;

  // After every successful group commit.
  void on_committed(const StoreEvents& events);
  // Calls asked to end (R-D3), from a commit here or another replica's notice: those this replica runs have their
  // trees killed and end `cancelled` once the keeper reports the tree gone (the slot is held until then).
  void cancel(const std::vector<std::string>& call_ids);
  std::size_t running() const { return executions_->size(); }

 private:
  // The execution library's ledger: the store.
  bool record(const std::string& call_id, const char* what,
              const agentworks::functions::ExecutionReport& report) override;
  void explicit_answer(const std::string& call_id, ExplicitAnswerHandler done) override;
  void waiting_input(const std::string& call_id, WaitingHandler done) override;
  void finished(const std::string& call_id, const agentworks::functions::ExecutionOutcome& outcome) override;

  void start(const std::string& call_id, const std::string& token);
  void record_outcome(const std::string& call_id, const CallOutcome& outcome);
  bool write(const char* what, const std::function<void()>& f);
  void sweep_outputs(const Crew& crew);
  void retry_outcomes();
  static void on_retry(int fd, short what, void* arg);
  static void on_cancel_poll(int fd, short what, void* arg);

  event_base* base_;
  Store& store_;
  std::function<void()> schedule_commit_;
  std::unordered_map<std::string, std::unique_ptr<CallOutcome>> unconfirmed_;  // outcomes not yet committed
  event* retry_ev_ = nullptr;
  event* cancel_poll_ev_ = nullptr;  // a lost replica notice delays a cancel by at most its period
  std::unique_ptr<SweepWorker> sweeper_;
  std::unique_ptr<agentworks::functions::CallExecutions> executions_;  // destroyed first: it reports to this
};

}  // namespace agentworks::server::functions
