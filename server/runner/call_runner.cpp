#include "runner/call_runner.hpp"

#include <event2/event.h>
#include <spdlog/spdlog.h>

#include "crews/call_admission.hpp"
#include "crews/output_sweeper.hpp"
#include "declaration/declaration.hpp"
#include "store/calls_store.hpp"
#include "store/crews_store.hpp"

namespace agentworks::server::functions {

namespace library = agentworks::functions;

namespace {

// How often the calls this replica runs are checked for a cancel another replica took (its notice may be lost).
constexpr timeval kCancelPollPeriod{2, 0};

}  // namespace

CallRunner::CallRunner(event_base* base, Store& store, std::function<void()> schedule_commit,
                       library::RunnerConfig config)
    : base_(base), store_(store), schedule_commit_(std::move(schedule_commit)) {
  retry_ev_ = evtimer_new(base_, &CallRunner::on_retry, this);
  cancel_poll_ev_ = event_new(base_, -1, EV_PERSIST, &CallRunner::on_cancel_poll, this);
  evtimer_add(cancel_poll_ev_, &kCancelPollPeriod);
  sweeper_ = std::make_unique<SweepWorker>(base_, [this](std::vector<functions::SweptCall> swept) {
    write("the expired call folders", [&] { record_swept(store_, swept); });
  });
  library::CallLedger& ledger = *this;
  executions_ = std::make_unique<library::CallExecutions>(base_, ledger, std::move(config));
}

CallRunner::~CallRunner() {
  executions_.reset();  // the calls read interrupted at the next start
  sweeper_.reset();
  event_free(retry_ev_);
  event_free(cancel_poll_ev_);
}

bool CallRunner::write(const char* what, const std::function<void()>& f) {
  try {
    store_.in_request(f);
    schedule_commit_();
    return true;
  } catch (const std::exception& e) {
    spdlog::error("function call: cannot store {}: {}", what, e.what());
    if (store_.in_batch()) schedule_commit_();
    return false;
  }
}

bool CallRunner::record(const std::string& call_id, const char* what, const library::ExecutionReport& report) {
  return write(what, [&] { record_report(store_, call_id, report); });
}

void CallRunner::explicit_answer(const std::string& call_id, ExplicitAnswerHandler done) {
  std::optional<library::ExplicitAnswer> answer;
  write("the explicit answer", [&] {
    const ExplicitReply said = explicit_reply(store_, call_id);
    answer = library::ExplicitAnswer{said.sent, said.declined};
  });
  done(std::move(answer));
}

void CallRunner::waiting_input(const std::string& call_id, WaitingHandler done) {
  bool waiting = false;
  try {
    const auto row = call_by_id(store_, call_id);
    waiting = row && row->status == CallStatus::waiting_input;
  } catch (const std::exception&) {
  }
  done(waiting);
}

void CallRunner::finished(const std::string& call_id, const library::ExecutionOutcome& outcome) {
  record_outcome(call_id, outcome_of(outcome));
}

void CallRunner::sweep_outputs(const Crew& crew) {
  std::optional<SweepJob> job;
  const bool planned = write("the Crew's sweep time", [&] {
    job = plan_sweep(store_, crew, store_.limits().call_output_ttl_seconds, store_.limits().call_sweep_interval_seconds);
  });
  if (planned && job) sweeper_->submit(std::move(*job));
}

void CallRunner::on_committed(const StoreEvents& events) {
  for (const auto& id : events.calls_changed) {
    unconfirmed_.erase(id);
    executions_->recorded(id);
  }
  for (const auto& [call_id, token] : events.calls_started) start(call_id, token);
  if (!events.calls_cancelled.empty()) cancel(events.calls_cancelled);
}

void CallRunner::cancel(const std::vector<std::string>& call_ids) { executions_->cancel(call_ids); }

void CallRunner::start(const std::string& call_id, const std::string& token) {
  library::CallJob job;
  job.call_id = call_id;
  job.token = token;
  try {
    const auto call = call_by_id(store_, call_id);
    if (!call || !call->open()) return;
    const auto crew = crew_by_id(store_, call->crew_id);
    if (!crew) throw std::runtime_error("its Crew was unregistered");
    if (crew->served()) return;  // its runner claims it (R-R1); a commit never starts it here
    sweep_outputs(*crew);  // R-F6: a later call of the Crew is what sweeps its old outputs
    const auto parsed = parsed_declaration(*crew);
    const library::FunctionDecl* f = library::find_function(parsed->declaration, call->function);
    if (f == nullptr) throw std::runtime_error("function " + call->function + " is no longer declared");
    job.function = *f;
    job.crew_dir = crew->dir;
    job.arguments_json = call->arguments_json;
  } catch (const std::exception& e) {
    CallOutcome o;
    o.status = CallStatus::failed;
    o.error_code = "spawn_failed";
    o.error_message = std::string("the execution could not start: ") + e.what();
    record_outcome(call_id, o);
    return;
  }
  executions_->start(std::move(job));
}

void CallRunner::record_outcome(const std::string& call_id, const CallOutcome& outcome) {
  unconfirmed_[call_id] = std::make_unique<CallOutcome>(outcome);
  write("a call's outcome", [&] { finish_call(store_, call_id, outcome); });
  // Confirmed by the commit (on_committed); a failed commit is retried until the store takes it.
  const timeval tv{2, 0};
  evtimer_add(retry_ev_, &tv);
}

void CallRunner::retry_outcomes() {
  std::vector<std::string> done;
  for (const auto& [id, o] : unconfirmed_) {
    const std::string call_id = id;
    const CallOutcome outcome = *o;
    bool open = true;
    try {
      const auto row = call_by_id(store_, call_id);
      open = row && row->open();
    } catch (const std::exception&) {
    }
    if (!open) {
      done.push_back(call_id);
      continue;
    }
    write("a call's outcome (retry)", [&] { finish_call(store_, call_id, outcome); });
  }
  for (const auto& id : done) unconfirmed_.erase(id);
  if (!unconfirmed_.empty()) {
    const timeval tv{2, 0};
    evtimer_add(retry_ev_, &tv);
  }
}

void CallRunner::on_retry(int, short, void* arg) { static_cast<CallRunner*>(arg)->retry_outcomes(); }

void CallRunner::on_cancel_poll(int, short, void* arg) {
  auto* self = static_cast<CallRunner*>(arg);
  if (self->executions_->size() == 0) return;
  try {
    self->cancel(cancel_requested_calls(self->store_));
  } catch (const std::exception& e) {
    spdlog::warn("function calls: cannot read the cancel requests: {}", e.what());
  }
}

}  // namespace agentworks::server::functions
