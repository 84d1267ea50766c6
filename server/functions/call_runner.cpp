#include "functions/call_runner.hpp"

#include <event2/event.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <filesystem>

#include "functions/call_environment.hpp"
#include "functions/declaration.hpp"
#include "functions/execution.hpp"
#include "functions/result_check.hpp"
#include "store/calls_store.hpp"
#include "store/crews_store.hpp"

namespace agentworks::server::functions {

namespace fs = std::filesystem;

struct CallRunner::Running {
  CallRunner* runner = nullptr;
  std::string call_id;
  std::string token;
  std::string crew_dir;
  std::string call_dir;
  std::string arguments_json;
  FunctionDecl function;
  int turn = 0;  // 0: the execution, 1: the correction turn
  bool timed_out = false;
  std::unique_ptr<Execution> execution;
  event* timer = nullptr;
  std::deque<std::string> stderr_tail;  // kept for a failure's message
};

namespace {

constexpr std::size_t kTailLines = 10;

// The folder for one call, private to the server's user; `outputs/` is shared by every call of the Crew.
std::string make_call_dir(const std::string& crew_dir, const std::string& call_id) {
  const std::string calls = crew_dir + "/.calls";
  if (::mkdir(calls.c_str(), 0700) != 0 && errno != EEXIST)
    throw std::runtime_error("cannot create " + calls + ": " + std::strerror(errno));
  // A planted symlink would send the call's files elsewhere: .calls must be a real folder of the server's user.
  struct stat st {};
  if (::lstat(calls.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::getuid())
    throw std::runtime_error(calls + " is not a folder owned by the server's user (a symlink?); remove it");
  const std::string dir = calls + "/" + call_id;
  if (::mkdir(dir.c_str(), 0700) != 0)
    throw std::runtime_error("cannot create " + dir + ": " + std::strerror(errno));
  const std::string outputs = crew_dir + "/outputs";
  if (::mkdir(outputs.c_str(), 0700) != 0 && errno != EEXIST)
    throw std::runtime_error("cannot create " + outputs + ": " + std::strerror(errno));
  return dir;
}

std::string without_final_newline(std::string s) {
  if (!s.empty() && s.back() == '\n') s.pop_back();
  if (!s.empty() && s.back() == '\r') s.pop_back();
  return s;
}

CallOutcome failure(const std::string& code, const std::string& message) {
  CallOutcome o;
  o.status = kCallFailed;
  o.error_code = code;
  o.error_message = message;
  return o;
}

std::string tail_text(const std::deque<std::string>& tail) {
  std::string out;
  for (const auto& l : tail) out += (out.empty() ? "" : "\n") + l;
  return out;
}

}  // namespace

CallRunner::CallRunner(event_base* base, Store& store, std::function<void()> schedule_commit, RunnerConfig config)
    : base_(base), store_(store), schedule_commit_(std::move(schedule_commit)), config_(std::move(config)) {
  cleanup_ev_ = event_new(base_, -1, 0, &CallRunner::on_cleanup, this);
  retry_ev_ = evtimer_new(base_, &CallRunner::on_retry, this);
}

CallRunner::~CallRunner() {
  for (auto& [id, r] : running_) {
    if (r->timer != nullptr) event_free(r->timer);
    r->execution.reset();  // SIGTERM to the keeper: the tree dies; the call reads interrupted at the next start
  }
  running_.clear();
  retired_.clear();
  event_free(cleanup_ev_);
  event_free(retry_ev_);
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

void CallRunner::on_committed(const StoreEvents& events) {
  for (const auto& id : events.calls_changed) unconfirmed_.erase(id);
  for (const auto& [call_id, token] : events.calls_started) start(call_id, token);
}

void CallRunner::start(const std::string& call_id, const std::string& token) {
  if (running_.count(call_id) != 0) return;
  auto r = std::make_unique<Running>();
  r->runner = this;
  r->call_id = call_id;
  r->token = token;
  try {
    const auto call = call_by_id(store_, call_id);
    if (!call || !call->open()) return;
    const auto crew = crew_by_id(store_, call->crew_id);
    if (!crew) throw std::runtime_error("its Crew was unregistered");
    const Declaration decl = declaration_from_json(crew->declaration_json);
    const FunctionDecl* f = find_function(decl, call->function);
    if (f == nullptr) throw std::runtime_error("function " + call->function + " is no longer declared");
    r->function = *f;
    r->crew_dir = crew->dir;
    r->arguments_json = call->arguments_json;
    r->call_dir = make_call_dir(crew->dir, call_id);
  } catch (const std::exception& e) {
    record_outcome(call_id, failure("spawn_failed", std::string("the execution could not start: ") + e.what()));
    return;
  }
  Running& ref = *r;
  running_.emplace(call_id, std::move(r));
  ref.timer = evtimer_new(base_, &CallRunner::on_timeout, &ref);
  const timeval tv{ref.function.timeout_seconds, 0};
  evtimer_add(ref.timer, &tv);
  start_turn(ref, std::nullopt);
}

void CallRunner::start_turn(Running& r, const std::optional<std::string>& correction) {
  CallEnvironment env;
  env.call_id = r.call_id;
  env.call_token = r.token;
  env.server_url = config_.server_url;
  env.inputs_json = r.arguments_json;
  env.output_dir = r.call_dir;
  env.crew_output = r.crew_dir + "/outputs";
  env.correction = correction;
  ExecutionSpec spec;
  spec.keeper = config_.keeper;
  spec.command = r.function.command;
  spec.env = environment_of(env);
  spec.cwd = r.crew_dir;
  spec.stdin_bytes = r.arguments_json;
  const std::string call_id = r.call_id;
  const int turn = r.turn;
  try {
    r.execution = std::make_unique<Execution>(
        base_, spec, [this, &r](const std::string& line) { on_line(r, line); },
        [this, call_id, turn](const ExecutionEnd& end) { on_end(call_id, turn, end); });
  } catch (const std::exception& e) {
    ExecutionEnd end;
    end.kind = ExecutionEnd::Kind::spawn_failed;
    end.detail = e.what();
    conclude(r, end, "");
  }
}

void CallRunner::on_line(Running& r, const std::string& line) {
  r.stderr_tail.push_back(line.substr(0, 500));
  if (r.stderr_tail.size() > kTailLines) r.stderr_tail.pop_front();
  const std::string id = r.call_id;
  write("an execution message", [&] {
    append_call_message(store_, id, "progress", line);
    set_call_progress(store_, id, line);
  });
}

void CallRunner::on_end(const std::string& call_id, int turn, const ExecutionEnd& end) {
  auto it = running_.find(call_id);
  if (it == running_.end() || it->second->turn != turn) return;
  Running& r = *it->second;
  const std::string output = r.execution ? r.execution->stdout_text() : "";
  // The execution object is inside its own callback: free it later, outside.
  retired_.push_back(std::move(r.execution));
  event_active(cleanup_ev_, EV_TIMEOUT, 0);
  conclude(r, end, output);
}

void CallRunner::conclude(Running& r, const ExecutionEnd& end, const std::string& output) {
  const std::string call_id = r.call_id;
  const std::string answer = without_final_newline(output);
  std::optional<CallOutcome> outcome;
  if (r.timed_out) {
    outcome = failure("timeout", "ran past its timeout of " + std::to_string(r.function.timeout_seconds) +
                                     " s; its processes were killed");
  } else if (end.kind == ExecutionEnd::Kind::spawn_failed) {
    outcome = failure("spawn_failed", end.detail);
  } else if (end.kind == ExecutionEnd::Kind::signaled) {
    outcome = failure("killed", "ended by signal " + std::to_string(end.code) +
                                    (r.stderr_tail.empty() ? "" : "; last stderr lines:\n" + tail_text(r.stderr_tail)));
  } else if (end.code != 0) {
    outcome = failure("exit_status", "exited with status " + std::to_string(end.code) +
                                         (r.stderr_tail.empty() ? "" : "; last stderr lines:\n" + tail_text(r.stderr_tail)));
  } else if (!r.function.output_schema_json) {
    CallOutcome o;
    o.status = kCallCompleted;
    o.answer = answer;
    outcome = o;
  } else {
    const std::string result_path = r.call_dir + "/result.json";
    const ResultCheck file = check_result_file(result_path, *r.function.output_schema_json);
    if (file.result_json) {
      CallOutcome o;
      o.status = kCallCompleted;
      o.answer = answer;
      if (file.result_json->size() <= kMaxInlineResultBytes) o.result_json = file.result_json;
      else o.result_file = "result.json";
      outcome = o;
    } else if (r.turn == 0) {
      // Exactly one correction turn, in the same folder, told what was wrong.
      r.turn = 1;
      write("the correction turn", [&] {
        mark_correction(store_, call_id);
        add_call_event(store_, call_id, "correction_started", file.problem);
      });
      start_turn(r, file.problem);
      return;
    } else {
      const ResultCheck fallback = check_answer(answer, *r.function.output_schema_json);
      if (fallback.result_json && fallback.result_json->size() <= kMaxInlineResultBytes) {
        CallOutcome o;
        o.status = kCallCompleted;
        o.answer = answer;
        o.result_json = fallback.result_json;
        outcome = o;
      } else {
        CallOutcome o = failure("result_invalid", "no valid result after the correction turn: " + file.problem +
                                                      "; and " + fallback.problem);
        o.answer = answer;
        outcome = o;
      }
    }
  }
  if (r.timer != nullptr) event_free(r.timer);
  r.timer = nullptr;
  running_.erase(call_id);  // the slot is free in the store once the outcome commits
  record_outcome(call_id, *outcome);
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

void CallRunner::on_timeout(int, short, void* arg) {
  auto* r = static_cast<Running*>(arg);
  r->timed_out = true;
  const std::string id = r->call_id;
  r->runner->write("the timeout", [&] { add_call_event(r->runner->store_, id, "timed_out", ""); });
  // The call keeps its slot until the keeper reports the tree gone.
  if (r->execution) r->execution->terminate();
}

void CallRunner::on_cleanup(int, short, void* arg) { static_cast<CallRunner*>(arg)->retired_.clear(); }

void CallRunner::on_retry(int, short, void* arg) { static_cast<CallRunner*>(arg)->retry_outcomes(); }

}  // namespace agentworks::server::functions
