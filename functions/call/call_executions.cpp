#include "call/call_executions.hpp"

#include <event2/event.h>
#include <spdlog/spdlog.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <optional>

#include "agent/agent_invocation.hpp"
#include "agent/agent_prompt.hpp"
#include "agent/agent_stream.hpp"
#include "agent/agent_verdict.hpp"
#include "call/result_check.hpp"
#include "declaration/agent_cli.hpp"
#include "declaration/prompt_template.hpp"
#include "process/execution.hpp"

namespace agentworks::functions {

struct CallExecutions::Running {
  CallExecutions* owner = nullptr;
  std::string call_id;
  std::string token;
  std::string crew_dir;
  std::string call_dir;
  std::string arguments_json;
  FunctionDecl function;
  int turn = 0;  // 0: the execution, 1: the correction turn (or the silent turn's nudge, R-X7)
  bool silence_nudge = false;  // turn 1 is the nudge of an explicit function that ended silent
  bool timed_out = false;
  bool stalled = false;
  bool cancelled = false;  // asked to end (R-D3): whatever the tree does next, the outcome is `cancelled`
  bool abandoned = false;  // its host no longer holds it: it ends without a word
  bool was_waiting = false;  // the last idle check found a question pending, and no output came since
  std::uint64_t idle_armed = 0;  // counts the idle timer's arming: an idle check answered after new output is moot
  // R-X7: the explicit function's answer, read from the host when its turn ended (asked once per turn's end).
  bool asking_answer = false;
  std::optional<std::optional<ExplicitAnswer>> answer_read;
  std::unique_ptr<Execution> execution;
  event* timer = nullptr;
  event* idle_timer = nullptr;
  std::deque<std::string> stderr_tail;  // kept for a failure's message
  // Past kMaxCallMessages stderr lines are only counted, and written at most every kDroppedWriteInterval.
  std::int64_t messages_written = 0;     // appends made for the call (each claimed a slot or counted)
  std::int64_t dropped_unwritten = 0;
  std::optional<std::string> progress_unwritten;
  std::chrono::steady_clock::time_point dropped_written_at{};
  // Agent runners.
  std::string agent_cli;                 // the claude / codex executable
  std::string session;                   // Claude: chosen before the start; Codex: from thread.started
  bool awaiting_session_commit = false;  // Claude starts once its session id is committed
  bool version_known = false;
  PromptContext prompt;
  std::unique_ptr<AgentStream> stream;   // this turn's
  std::string seen_session;              // the id this turn's stream announced
  std::optional<AgentTerminal> terminal; // this turn's terminal event
  bool agent() const { return function.runner != Runner::command; }
};

namespace {

constexpr std::size_t kTailLines = 10;
// How often a flooding execution's dropped count and progress reach the store once its messages are full.
constexpr auto kDroppedWriteInterval = std::chrono::milliseconds(250);

// The folder for one call, private to the host's user; `outputs/` is shared by every call of the Crew.
std::string make_call_dir(const std::string& crew_dir, const std::string& call_id) {
  const std::string calls = crew_dir + "/.calls";
  if (::mkdir(calls.c_str(), 0700) != 0 && errno != EEXIST)
    throw std::runtime_error("cannot create " + calls + ": " + std::strerror(errno));
  // A planted symlink would send the call's files elsewhere: .calls must be a real folder of the server's user.
  struct stat st {};
  if (::lstat(calls.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::getuid())
    throw std::runtime_error(calls + " is not a folder owned by the user running the Crew's calls (a symlink?); remove it");
  // The calls' outputs are not the project's: git leaves the folder alone without an edit to the project's own
  // .gitignore. Written once; a failure only costs a noisy `git status`.
  const std::string ignore = calls + "/.gitignore";
  if (const int fd = ::open(ignore.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600); fd >= 0) {
    static constexpr char kAll[] = "# agentworks: the outputs of this Crew's function calls\n*\n";
    if (::write(fd, kAll, sizeof kAll - 1) != static_cast<ssize_t>(sizeof kAll - 1))
      spdlog::warn("could not write {}: {}", ignore, std::strerror(errno));
    ::close(fd);
  } else if (errno != EEXIST) {
    spdlog::warn("could not create {}: {}", ignore, std::strerror(errno));
  }
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

ExecutionOutcome failure(const std::string& code, const std::string& message) {
  ExecutionOutcome o;
  o.status = ExecutionOutcome::Status::failed;
  o.error_code = code;
  o.error_message = message;
  return o;
}

std::string tail_text(const std::deque<std::string>& tail) {
  std::string out;
  for (const auto& l : tail) out += (out.empty() ? "" : "\n") + l;
  return out;
}

std::string with_tail(const std::string& message, const std::deque<std::string>& tail) {
  return tail.empty() ? message : message + "; last stderr lines:\n" + tail_text(tail);
}

// An executable's identity for the version cache: a reinstalled CLI is probed again.
std::string binary_key(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return path;
  return path + ":" + std::to_string(st.st_mtime) + ":" + std::to_string(st.st_size);
}

// "codex-cli 0.171.0" -> "0.171.0"; "2.1.332 (Claude Code)" -> "2.1.332".
std::string version_of(const std::string& out) {
  const std::string first = out.substr(0, out.find('\n'));
  std::size_t i = 0;
  while (i < first.size()) {
    const std::size_t end = std::min(first.find(' ', i), first.size());
    const std::string word = first.substr(i, end - i);
    if (!word.empty() && std::isdigit(static_cast<unsigned char>(word.front())) != 0) return word;
    i = end + 1;
  }
  return first;
}

}  // namespace

CallExecutions::CallExecutions(event_base* base, CallLedger& ledger, RunnerConfig config)
    : base_(base), ledger_(ledger), config_(std::move(config)) {
  cleanup_ev_ = event_new(base_, -1, 0, &CallExecutions::on_cleanup, this);
}

CallExecutions::~CallExecutions() {
  for (auto& [id, r] : running_) {
    if (r->timer != nullptr) event_free(r->timer);
    if (r->idle_timer != nullptr) event_free(r->idle_timer);
    r->execution.reset();  // SIGTERM to the keeper: the tree dies; the host's lease sweep settles the call
  }
  running_.clear();
  retired_.clear();
  probes_.clear();
  event_free(cleanup_ev_);
}

bool CallExecutions::report(const std::string& call_id, const char* what, const ExecutionReport& changes) {
  return ledger_.record(call_id, what, changes);
}

void CallExecutions::recorded(const std::string& call_id) {
  // A Claude session id is durable now: a crash from here on leaves a call that names its transcript.
  const auto it = running_.find(call_id);
  if (it != running_.end() && it->second->awaiting_session_commit) {
    it->second->awaiting_session_commit = false;
    start_turn(*it->second, std::nullopt);
  }
}

void CallExecutions::cancel(const std::vector<std::string>& call_ids) {
  for (const auto& id : call_ids) {
    const auto it = running_.find(id);
    if (it == running_.end()) continue;
    Running& r = *it->second;
    if (r.cancelled || r.timed_out || r.stalled) continue;  // already ending: the first reason stands
    r.cancelled = true;
    if (r.execution) r.execution->terminate();
    else conclude(r, ExecutionEnd{}, "");  // not started yet (its session id awaited its record)
  }
}

void CallExecutions::abandon(const std::vector<std::string>& call_ids) {
  for (const auto& id : call_ids) {
    const auto it = running_.find(id);
    if (it == running_.end()) continue;
    Running& r = *it->second;
    const bool ending = r.cancelled || r.timed_out || r.stalled;  // its tree was told already
    r.abandoned = true;
    r.cancelled = true;  // whatever ends it next, nothing is reported
    if (!r.execution) conclude(r, ExecutionEnd{}, "");  // not started, or between turns: gone now
    else if (!ending) r.execution->terminate();
  }
}

std::vector<std::string> CallExecutions::running_ids() const {
  std::vector<std::string> ids;
  ids.reserve(running_.size());
  for (const auto& [id, r] : running_) ids.push_back(id);
  return ids;
}

void CallExecutions::start(CallJob job) {
  if (running_.count(job.call_id) != 0) return;
  const std::string call_id = job.call_id;
  auto r = std::make_unique<Running>();
  r->owner = this;
  r->call_id = call_id;
  r->token = std::move(job.token);
  r->function = std::move(job.function);
  r->crew_dir = std::move(job.crew_dir);
  r->arguments_json = std::move(job.arguments_json);
  try {
    if (r->agent()) {
      const auto cli = find_agent_cli(r->function.runner);
      if (!cli) throw std::runtime_error(missing_agent_cli(r->function.runner));
      if (config_.agentworks_cli.empty())
        throw std::runtime_error("the agentworks program (the question server of an agent execution) is not installed "
                                 "beside the program running the call; set AGENTWORKS_CLI_BIN for it");
      r->agent_cli = *cli;
      r->prompt.function = r->function.name;
      r->prompt.call_id = call_id;
      r->prompt.task = render_prompt(r->function.agent.prompt, r->function.inputs_json, r->arguments_json);
      r->prompt.output_schema_json = r->function.output_schema_json;
      r->prompt.explicit_communication = r->function.explicit_communication;
    }
    r->call_dir = make_call_dir(r->crew_dir, call_id);
    r->prompt.output_dir = r->call_dir;
    r->prompt.result_file = r->call_dir + "/result.json";
  } catch (const std::exception& e) {
    ledger_.finished(call_id, failure("spawn_failed", std::string("the execution could not start: ") + e.what()));
    return;
  }
  Running& ref = *r;
  running_.emplace(call_id, std::move(r));
  ref.timer = evtimer_new(base_, &CallExecutions::on_timeout, &ref);
  const timeval tv{ref.function.timeout_seconds, 0};
  evtimer_add(ref.timer, &tv);
  if (ref.function.idle_timeout_seconds > 0) ref.idle_timer = evtimer_new(base_, &CallExecutions::on_idle, &ref);
  if (ref.function.runner == Runner::claude) {
    ref.session = new_session_uuid();
    ExecutionReport agent;
    agent.agent = "claude";
    agent.session = ref.session;
    if (report(call_id, "the agent session", agent)) {
      ref.awaiting_session_commit = true;  // started by recorded()
      return;
    }
    ExecutionEnd end;
    end.kind = ExecutionEnd::Kind::spawn_failed;
    end.detail = "the session id could not be stored";
    conclude(ref, end, "");
    return;
  }
  if (ref.function.runner == Runner::codex) {
    ExecutionReport agent;
    agent.agent = "codex";
    report(call_id, "the agent", agent);
    probe_version(ref);
  }
  start_turn(ref, std::nullopt);
}

ExecutionSpec CallExecutions::turn_spec(Running& r, const std::optional<std::string>& correction) {
  CallEnvironment env;
  env.call_id = r.call_id;
  env.call_token = r.token;
  env.server_url = config_.server_url;
  env.server_ca_file = config_.server_ca_file;
  env.inputs_json = r.arguments_json;
  env.output_dir = r.call_dir;
  env.crew_output = r.crew_dir + "/outputs";
  env.correction = correction;
  ExecutionSpec spec;
  spec.keeper = config_.keeper;
  spec.cwd = r.crew_dir;
  if (!r.agent()) {
    spec.command = r.function.command;
    spec.env = environment_of(env);
    spec.stdin_bytes = r.arguments_json;
    return spec;
  }
  AgentTurn t;
  t.runner = r.function.runner;
  t.run = &r.function.agent;
  t.cli = r.agent_cli;
  t.agentworks_cli = config_.agentworks_cli;
  t.session = r.session;
  t.resume = correction.has_value() || r.silence_nudge;
  t.tool_timeout_seconds = r.function.timeout_seconds;
  t.explicit_communication = r.function.explicit_communication;
  if (t.resume && t.session.empty()) throw std::runtime_error("Codex announced no thread id to resume");
  spec.command = agent_argv(t);
  spec.env = agent_environment(t, environment_of(env));
  spec.stdin_bytes = r.silence_nudge ? silent_turn_prompt(r.prompt)
                     : correction    ? correction_prompt(r.prompt, *correction)
                                     : agent_prompt(r.prompt);
  return spec;
}

void CallExecutions::start_turn(Running& r, const std::optional<std::string>& correction) {
  const std::string call_id = r.call_id;
  const int turn = r.turn;
  r.stream = r.agent() ? make_agent_stream(r.function.runner) : nullptr;
  r.terminal.reset();
  r.seen_session.clear();
  try {
    const ExecutionSpec spec = turn_spec(r, correction);
    Execution::LineHandler on_stdout;
    if (r.agent()) on_stdout = [this, &r](const std::string& line) { on_event_line(r, line); };
    r.execution = std::make_unique<Execution>(
        base_, spec, [this, &r](const std::string& line) { on_line(r, line); },
        [this, call_id, turn](const ExecutionEnd& end) { on_end(call_id, turn, end); }, std::move(on_stdout));
    arm_idle(r);
  } catch (const std::exception& e) {
    ExecutionEnd end;
    end.kind = ExecutionEnd::Kind::spawn_failed;
    end.detail = e.what();
    conclude(r, end, "");
  }
}

void CallExecutions::arm_idle(Running& r) {
  ++r.idle_armed;
  r.was_waiting = false;
  if (r.idle_timer == nullptr) return;
  const timeval tv{r.function.idle_timeout_seconds, 0};
  evtimer_add(r.idle_timer, &tv);
}

void CallExecutions::on_line(Running& r, const std::string& line) {
  arm_idle(r);
  r.stderr_tail.push_back(line.substr(0, 500));
  if (r.stderr_tail.size() > kTailLines) r.stderr_tail.pop_front();
  const std::string id = r.call_id;
  if (r.messages_written >= kMaxCallMessages) {
    // The call's messages are full: the line is counted, and the count and the progress are written a few times a
    // second, not once per line (a flood of stderr would cost the store a write each).
    ++r.dropped_unwritten;
    if (!r.agent()) r.progress_unwritten = line;
    if (std::chrono::steady_clock::now() - r.dropped_written_at >= kDroppedWriteInterval) write_dropped(r);
    return;
  }
  ++r.messages_written;
  // A command's stderr is its progress; an agent CLI's stderr is only its log.
  ExecutionReport message;
  message.messages.push_back({r.agent() ? "stderr" : "progress", line});
  if (!r.agent()) message.progress = line;
  report(id, "an execution message", message);
}

void CallExecutions::write_dropped(Running& r) {
  r.dropped_written_at = std::chrono::steady_clock::now();
  if (r.dropped_unwritten == 0 && !r.progress_unwritten) return;
  const std::string id = r.call_id;
  const std::int64_t n = r.dropped_unwritten;
  const std::optional<std::string> progress = std::move(r.progress_unwritten);
  r.dropped_unwritten = 0;
  r.progress_unwritten.reset();
  ExecutionReport dropped;
  dropped.dropped = n;
  dropped.progress = progress;
  report(id, "the dropped messages' count", dropped);
}

void CallExecutions::on_event_line(Running& r, const std::string& line) {
  arm_idle(r);
  if (line.empty()) return;
  const AgentLine l = r.stream->read(line);
  const std::string id = r.call_id;
  if (l.session_id) {
    r.seen_session = *l.session_id;
    if (r.function.runner == Runner::codex && r.session.empty() && !r.seen_session.empty()) {
      r.session = r.seen_session;  // Codex's resume key, stored the moment it is known
      ExecutionReport agent;
      agent.agent = "codex";
      agent.session = r.session;
      report(id, "the agent session", agent);
    }
  }
  if (l.terminal) r.terminal = l.terminal;
  ExecutionReport event;
  if (l.version && !r.version_known) {
    r.version_known = true;
    event.agent_version = l.version;
  }
  if (l.malformed) event.messages.push_back({"warning", "an unreadable event line: " + line.substr(0, 200)});
  // R-X7: an explicit function's own text is commentary; what it sends is recorded as kind "message".
  for (const auto& m : l.messages)
    event.messages.push_back({r.function.explicit_communication && m.kind == "assistant" ? "commentary" : m.kind, m.text});
  event.progress = l.progress;
  if (l.usage) event.events.push_back({"usage", *l.usage});
  report(id, "an agent event", event);
}

void CallExecutions::probe_version(Running& r) {
  const std::string key = binary_key(r.agent_cli);
  if (const auto it = versions_.find(key); it != versions_.end()) {
    r.version_known = true;
    const std::string id = r.call_id;
    ExecutionReport version;
    version.agent_version = it->second;
    report(id, "the agent version", version);
    return;
  }
  ExecutionSpec spec;
  spec.keeper = config_.keeper;
  spec.cwd = r.crew_dir;
  spec.command = {r.agent_cli, "--version"};
  AgentTurn t;
  t.runner = r.function.runner;
  spec.env = agent_environment(t, environment_of(CallEnvironment{}));
  const std::string call_id = r.call_id;
  const std::size_t index = probes_.size();
  try {
    probes_.push_back(std::make_unique<Execution>(
        base_, spec, [](const std::string&) {},
        [this, key, call_id, index](const ExecutionEnd&) { finish_probe(key, call_id, index); }));
  } catch (const std::exception& e) {
    spdlog::warn("function call {}: cannot probe the version of {}: {}", call_id, r.agent_cli, e.what());
  }
}

void CallExecutions::finish_probe(const std::string& key, const std::string& call_id, std::size_t index) {
  if (index >= probes_.size() || !probes_[index]) return;
  const std::string version = version_of(probes_[index]->stdout_text());
  retired_.push_back(std::move(probes_[index]));
  event_active(cleanup_ev_, EV_TIMEOUT, 0);
  bool running = false;
  for (const auto& p : probes_) running = running || p != nullptr;
  if (!running) probes_.clear();
  if (version.empty()) return;
  versions_[key] = version;
  ExecutionReport known;
  known.agent_version = version;
  report(call_id, "the agent version", known);
}

void CallExecutions::on_end(const std::string& call_id, int turn, const ExecutionEnd& end) {
  auto it = running_.find(call_id);
  if (it == running_.end() || it->second->turn != turn) return;
  Running& r = *it->second;
  const std::string output = r.execution ? r.execution->stdout_text() : "";
  // The execution object is inside its own callback: free it later, outside.
  retired_.push_back(std::move(r.execution));
  event_active(cleanup_ev_, EV_TIMEOUT, 0);
  conclude(r, end, output);
}

void CallExecutions::conclude(Running& r, const ExecutionEnd& end, const std::string& output) {
  if (!r.abandoned) write_dropped(r);  // what the last interval counted, before the outcome
  const std::string call_id = r.call_id;
  std::string answer = without_final_newline(output);
  std::optional<ExecutionOutcome> outcome;
  if (r.cancelled) {
    ExecutionOutcome o;
    o.status = ExecutionOutcome::Status::cancelled;
    o.error_code = "cancelled";
    o.error_message = "cancelled at its caller's (or its Crew owner's) request; its processes were killed, and its "
                      "messages and files remain";
    if (!answer.empty()) o.answer = answer;
    outcome = o;
  } else if (r.timed_out) {
    outcome = failure("timeout", "ran past its timeout of " + std::to_string(r.function.timeout_seconds) +
                                     " s; its processes were killed");
  } else if (r.stalled) {
    outcome = failure("stalled", "no output or event for " + std::to_string(r.function.idle_timeout_seconds) +
                                     " s (idle_timeout_seconds); its processes were killed");
  } else if (end.kind == ExecutionEnd::Kind::spawn_failed) {
    outcome = failure("spawn_failed", end.detail);
  } else if (end.kind == ExecutionEnd::Kind::signaled) {
    outcome = failure("killed", with_tail("ended by signal " + std::to_string(end.code), r.stderr_tail));
  } else if (r.agent()) {
    const AgentVerdict v = agent_verdict(r.function.runner, r.terminal, *r.stream, r.session, r.seen_session, end.code);
    answer = v.answer;
    if (!v.ok) {
      ExecutionOutcome o = failure(v.error_code, v.error_code == "agent_error" ? v.message : with_tail(v.message, r.stderr_tail));
      if (!answer.empty()) o.answer = answer;
      outcome = o;
    } else if (r.function.explicit_communication) {
      // R-X7: the answer is what it sent; a decline or a silence (after one nudge) completes with none. The host
      // is asked first; the conclusion resumes with its answer.
      if (!r.answer_read) {
        if (r.asking_answer) return;
        r.asking_answer = true;
        const int turn = r.turn;
        // The answer may come before the call returns, and conclude the call: nothing of `r` is used after it.
        ledger_.explicit_answer(call_id, [this, call_id, turn, end, output](std::optional<ExplicitAnswer> a) {
          const auto it = running_.find(call_id);
          if (it == running_.end() || it->second->turn != turn || !it->second->asking_answer) return;
          it->second->asking_answer = false;
          it->second->answer_read = std::move(a);
          conclude(*it->second, end, output);
        });
        return;
      }
      const std::optional<ExplicitAnswer> read = std::move(*r.answer_read);
      r.answer_read.reset();
      const ExplicitAnswer said = read.value_or(ExplicitAnswer{});
      if (!read) {
        outcome = failure("unavailable", "the store could not be read for the function's sent answer");
      } else if (said.sent) {
        answer = *said.sent;
      } else if (!said.declined && r.turn == 0) {
        r.turn = 1;
        r.silence_nudge = true;
        ExecutionReport nudge;
        nudge.events.push_back({"nudged", "ended its turn silent"});
        report(call_id, "the silent turn's nudge", nudge);
        start_turn(r, std::nullopt);
        return;
      } else {
        if (!said.declined) {
          ExecutionReport silent;
          silent.events.push_back({"ended_silent", ""});
          report(call_id, "the silent end", silent);
        }
        if (!r.function.output_schema_json) {
          ExecutionOutcome o;
          o.status = ExecutionOutcome::Status::completed;  // with no answer: it declined, or stayed silent after the nudge
          outcome = o;
        }
        answer.clear();
      }
    }
  } else if (end.code != 0) {
    outcome = failure("exit_status", with_tail("exited with status " + std::to_string(end.code), r.stderr_tail));
  }
  if (!outcome && !r.function.output_schema_json) {
    ExecutionOutcome o;
    o.status = ExecutionOutcome::Status::completed;
    o.answer = answer;
    outcome = o;
  } else if (!outcome) {
    const std::string result_path = r.call_dir + "/result.json";
    const ResultCheck file = check_result_file(result_path, *r.function.output_schema_json);
    if (file.result_json) {
      ExecutionOutcome o;
      o.status = ExecutionOutcome::Status::completed;
      o.answer = answer;
      if (file.result_json->size() <= kMaxInlineResultBytes) o.result_json = file.result_json;
      else o.result_file = "result.json";
      outcome = o;
    } else if (r.turn == 0) {
      // Exactly one correction turn, in the same folder (and the same agent session), told what was wrong.
      r.turn = 1;
      ExecutionReport correction;
      correction.correction = true;
      correction.events.push_back({"correction_started", file.problem});
      report(call_id, "the correction turn", correction);
      start_turn(r, file.problem);
      return;
    } else {
      const ResultCheck fallback = check_answer(answer, *r.function.output_schema_json);
      if (fallback.result_json && fallback.result_json->size() <= kMaxInlineResultBytes) {
        ExecutionOutcome o;
        o.status = ExecutionOutcome::Status::completed;
        o.answer = answer;
        o.result_json = fallback.result_json;
        outcome = o;
      } else {
        ExecutionOutcome o = failure("result_invalid", "no valid result after the correction turn: " + file.problem +
                                                      "; and " + fallback.problem);
        o.answer = answer;
        outcome = o;
      }
    }
  }
  if (r.timer != nullptr) event_free(r.timer);
  r.timer = nullptr;
  if (r.idle_timer != nullptr) event_free(r.idle_timer);
  r.idle_timer = nullptr;
  const bool abandoned = r.abandoned;
  running_.erase(call_id);  // the host frees the call's slot once it recorded the outcome
  if (!abandoned) ledger_.finished(call_id, *outcome);
}

void CallExecutions::on_timeout(int, short, void* arg) {
  auto* r = static_cast<Running*>(arg);
  if (r->cancelled) return;  // already ending, and its tree already told
  r->timed_out = true;
  const std::string id = r->call_id;
  ExecutionReport timed_out;
  timed_out.events.push_back({"timed_out", ""});
  r->owner->report(id, "the timeout", timed_out);
  // The call keeps its slot until the keeper reports the tree gone.
  if (r->execution) r->execution->terminate();
  else r->owner->conclude(*r, ExecutionEnd{}, "");  // never started (its session id was not recorded in time)
}

void CallExecutions::on_idle(int, short, void* arg) {
  auto* r = static_cast<Running*>(arg);
  CallExecutions* self = r->owner;
  if (!r->execution || r->timed_out || r->stalled || r->cancelled) return;
  // A pending question is the caller's turn, not a stall: the host is asked, and output that comes meanwhile
  // (which re-arms the timer) makes its answer moot.
  const std::string id = r->call_id;
  const std::uint64_t armed = r->idle_armed;
  self->ledger_.waiting_input(id, [self, id, armed](bool waiting) { self->idle_checked(id, armed, waiting); });
}

void CallExecutions::idle_checked(const std::string& call_id, std::uint64_t armed, bool waiting) {
  const auto it = running_.find(call_id);
  if (it == running_.end()) return;
  Running& r = *it->second;
  if (r.idle_armed != armed || !r.execution || r.timed_out || r.stalled || r.cancelled) return;
  if (waiting) {
    arm_idle(r);
    r.was_waiting = true;
    return;
  }
  // Answered during this period (through any replica): the answer is an event, so the agent gets a whole idle
  // timeout after it, not what was left of the period.
  if (r.was_waiting) {
    arm_idle(r);
    return;
  }
  r.stalled = true;
  ExecutionReport stall;
  stall.events.push_back({"stalled", std::to_string(r.function.idle_timeout_seconds) + " s without output"});
  report(call_id, "the stall", stall);
  r.execution->terminate();
}

void CallExecutions::on_cleanup(int, short, void* arg) { static_cast<CallExecutions*>(arg)->retired_.clear(); }

}  // namespace agentworks::functions
