#include "native/codex_queue.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <csignal>
#include <cstring>
#include <memory>
#include <regex>
#include <string_view>

#include "agentworks/native_versions.hpp"
#include "native/codex_app_queue.hpp"

extern char** environ;

namespace agentworks::bridge::native {
namespace {

// After the child exits, how long its pipes may stay open (a grandchild holding them) before we stop reading.
constexpr std::uint64_t kDrainAfterExitMs = 500;

// ---- one bounded child process on the loop ----

struct ChildRun {
  uv_process_t process{};
  uv_pipe_t out{};
  uv_pipe_t err{};
  uv_timer_t timer{};
  QueueRunEnd end;
  std::size_t limit = 0;
  int open_handles = 0;
  bool exited = false;
  bool out_open = true;
  bool err_open = true;
  bool reported = false;
  std::function<void(QueueRunEnd)> done;
};

void on_queue_handle_closed(uv_handle_t* h) {
  auto* run = static_cast<ChildRun*>(h->data);
  if (--run->open_handles == 0) delete run;
}

void close_embedded(uv_handle_t* h) {
  if (uv_is_closing(h) != 0) return;
  uv_close(h, on_queue_handle_closed);
}

void finish(ChildRun* run) {
  if (run->reported) return;
  run->reported = true;
  uv_timer_stop(&run->timer);
  close_embedded(reinterpret_cast<uv_handle_t*>(&run->out));
  close_embedded(reinterpret_cast<uv_handle_t*>(&run->err));
  close_embedded(reinterpret_cast<uv_handle_t*>(&run->timer));
  close_embedded(reinterpret_cast<uv_handle_t*>(&run->process));
  auto done = std::move(run->done);
  QueueRunEnd end = std::move(run->end);
  done(std::move(end));  // the run is freed once its handles are closed, after this returns
}

void maybe_finish(ChildRun* run) {
  if (run->exited && !run->out_open && !run->err_open) finish(run);
}

void on_alloc(uv_handle_t*, std::size_t suggested, uv_buf_t* buf) {
  buf->base = new char[suggested];
  buf->len = suggested;
}

void on_queue_output(uv_stream_t* stream, ssize_t n, const uv_buf_t* buf) {
  std::unique_ptr<char[]> owned(buf->base);
  auto* run = static_cast<ChildRun*>(stream->data);
  const bool is_out = stream == reinterpret_cast<uv_stream_t*>(&run->out);
  std::string& sink = is_out ? run->end.out : run->end.err;
  if (n > 0) {
    const std::size_t room = run->limit > sink.size() ? run->limit - sink.size() : 0;
    sink.append(buf->base, std::min(room, static_cast<std::size_t>(n)));  // the rest is read and dropped
    return;
  }
  if (n < 0) {  // EOF or a read error: this stream is done
    uv_read_stop(stream);
    (is_out ? run->out_open : run->err_open) = false;
    maybe_finish(run);
  }
}

void on_exit(uv_process_t* p, int64_t exit_status, int term_signal) {
  auto* run = static_cast<ChildRun*>(p->data);
  run->exited = true;
  run->end.exit_status = static_cast<long long>(exit_status);
  run->end.term_signal = term_signal;
  if (!run->out_open && !run->err_open) return finish(run);
  uv_timer_stop(&run->timer);
  uv_timer_start(&run->timer, [](uv_timer_t* t) { finish(static_cast<ChildRun*>(t->data)); }, kDrainAfterExitMs,
                 0);
}

void on_timeout(uv_timer_t* t) {
  auto* run = static_cast<ChildRun*>(t->data);
  if (run->exited) return finish(run);
  run->end.timed_out = true;
  uv_process_kill(&run->process, SIGKILL);  // on_exit follows with the signal
}

// The bridge's environment with CODEX_HOME replaced by the session's (removed when the session had none).
std::vector<std::string> child_env(const std::string& codex_home) {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    if (std::strncmp(*e, "CODEX_HOME=", 11) == 0) continue;
    env.emplace_back(*e);
  }
  if (!codex_home.empty()) env.push_back("CODEX_HOME=" + codex_home);
  return env;
}

// Calls `done` on a later loop turn (never re-entrantly from the caller).
void later(uv_loop_t* loop, std::function<void()> fn) {
  auto* timer = new uv_timer_t{};
  uv_timer_init(loop, timer);
  timer->data = new std::function<void()>(std::move(fn));
  uv_timer_start(
      timer,
      [](uv_timer_t* t) {
        auto* f = static_cast<std::function<void()>*>(t->data);
        uv_close(reinterpret_cast<uv_handle_t*>(t), [](uv_handle_t* h) {
          delete static_cast<std::function<void()>*>(h->data);
          delete reinterpret_cast<uv_timer_t*>(h);
        });
        (*f)();
      },
      0, 0);
}

void run_child(uv_loop_t* loop, std::vector<std::string> args, const std::string& codex_home,
               std::chrono::milliseconds timeout, std::size_t limit, std::function<void(QueueRunEnd)> done) {
  std::vector<std::string> env = child_env(codex_home);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);

  auto* run = new ChildRun{};
  run->limit = limit;
  run->done = std::move(done);
  uv_pipe_init(loop, &run->out, 0);
  uv_pipe_init(loop, &run->err, 0);
  uv_timer_init(loop, &run->timer);
  for (auto* h : {reinterpret_cast<uv_handle_t*>(&run->out), reinterpret_cast<uv_handle_t*>(&run->err),
                  reinterpret_cast<uv_handle_t*>(&run->timer), reinterpret_cast<uv_handle_t*>(&run->process)}) {
    h->data = run;
  }
  run->open_handles = 3;  // the process handle counts once spawned

  uv_stdio_container_t stdio[3];
  stdio[0].flags = UV_IGNORE;  // /dev/null
  stdio[1].flags = static_cast<uv_stdio_flags>(UV_CREATE_PIPE | UV_WRITABLE_PIPE);
  stdio[1].data.stream = reinterpret_cast<uv_stream_t*>(&run->out);
  stdio[2].flags = static_cast<uv_stdio_flags>(UV_CREATE_PIPE | UV_WRITABLE_PIPE);
  stdio[2].data.stream = reinterpret_cast<uv_stream_t*>(&run->err);
  uv_process_options_t options{};
  options.file = argv[0];
  options.args = argv.data();
  options.env = envp.data();
  options.stdio_count = 3;
  options.stdio = stdio;
  options.exit_cb = on_exit;

  if (const int rc = uv_spawn(loop, &run->process, &options); rc != 0) {
    run->end.started = false;
    run->end.spawn_error = rc;
    run->exited = true;
    ++run->open_handles;  // libuv initialised the handle; it must be closed too
    later(loop, [run] { finish(run); });
    return;
  }
  ++run->open_handles;
  uv_read_start(reinterpret_cast<uv_stream_t*>(&run->out), on_alloc, on_queue_output);
  uv_read_start(reinterpret_cast<uv_stream_t*>(&run->err), on_alloc, on_queue_output);
  uv_timer_start(&run->timer, on_timeout, static_cast<std::uint64_t>(std::max<long long>(timeout.count(), 1)), 0);
}

// ---- classification helpers ----

bool contains(const std::string& s, std::string_view what) { return s.find(what) != std::string::npos; }

// The first line that says what went wrong ("Error: …" / "error: …"), else the first non-warning line.
std::string first_error_line(const std::string& text) {
  std::string fallback;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t nl = text.find('\n', pos);
    std::string line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? text.size() : nl + 1;
    if (line.empty() || line.rfind("WARNING:", 0) == 0) continue;
    if (line.rfind("Error:", 0) == 0 || line.rfind("error:", 0) == 0) return line.substr(0, 300);
    if (fallback.empty()) fallback = line.substr(0, 300);
  }
  return fallback;
}

std::string first_line(const std::string& text) {
  return text.substr(0, std::min(text.find('\n'), static_cast<std::size_t>(300)));
}

}  // namespace

std::optional<std::string> parse_codex_version(const std::string& version_output) {
  return native_versions::parse_codex_version_line(version_output);
}

bool codex_version_known(const std::string& version) { return native_versions::codex_queue_known(version); }

bool has_queue_command(const std::string& help_output) {
  return contains(help_output, "Usage: codex queue") && contains(help_output, "--thread") &&
         contains(help_output, "--message");
}

bool valid_thread_id(const std::string& thread_id) {
  static const std::regex uuid(R"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})");
  return std::regex_match(thread_id, uuid);
}

bool valid_remote(const std::string& remote) {
  constexpr std::string_view scheme = "unix://";
  if (remote.rfind(scheme, 0) != 0) return false;
  const std::string path = remote.substr(scheme.size());
  // sockaddr_un.sun_path holds 108 bytes including the terminating NUL.
  if (path.size() < 2 || path.size() > 107 || path.front() != '/' || path.back() == '/') return false;
  for (const char c : path) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  }
  std::size_t pos = 1;
  while (pos <= path.size()) {
    const std::size_t slash = std::min(path.find('/', pos), path.size());
    const std::string_view part(path.data() + pos, slash - pos);
    if (part.empty() || part == "." || part == "..") return false;
    pos = slash + 1;
  }
  return true;
}

std::vector<std::string> queue_argv(const CodexBinding& b, const std::string& text) {
  std::vector<std::string> argv{b.codex_bin, "queue", "--thread=" + b.thread_id, "--message=" + text};
  if (!b.remote.empty()) argv.push_back("--remote=" + b.remote);
  return argv;
}

PushResult classify_queue_run(const QueueRunEnd& end) {
  if (!end.started) {
    // Nothing ran, nothing was queued.
    return {PushOutcome::refused, std::string("codex queue could not start: ") + uv_strerror(end.spawn_error)};
  }
  if (end.timed_out) return {PushOutcome::ambiguous, "codex queue did not finish in time and was killed"};
  if (end.term_signal != 0) {
    return {PushOutcome::ambiguous, "codex queue was killed by signal " + std::to_string(end.term_signal)};
  }
  if (end.exit_status == 0) return {PushOutcome::accepted, first_line(end.out)};
  const std::string why = first_error_line(end.err);
  // clap's usage errors (exit 2) happen before anything is sent.
  if (end.exit_status == 2 && (contains(end.err, "error: unexpected argument") ||
                               contains(end.err, "error: unrecognized subcommand") ||
                               contains(end.err, "error: a value is required") ||
                               contains(end.err, "Usage: codex queue"))) {
    return {PushOutcome::refused, "codex queue refused the command line: " + why};
  }
  // Errors Codex reports before it queues anything (docs/native-routes.md, "Codex queue").
  if (end.exit_status == 1 &&
      (contains(end.err, "no rollout found for thread id") || contains(end.err, "thread not found") ||
       contains(end.err, "No active session found matching") ||
       contains(end.err, "failed to connect to remote app server") || contains(end.err, "invalid remote address"))) {
    return {PushOutcome::refused, "codex queue refused: " + why};
  }
  return {PushOutcome::ambiguous,
          "codex queue exited " + std::to_string(end.exit_status) + (why.empty() ? "" : ": " + why)};
}

void probe_codex(uv_loop_t* loop, const CodexBinding& b,
                 std::function<void(bool ok, std::string version, std::string reason)> done,
                 const CodexRunLimits& limits) {
  if (b.codex_bin.empty() || b.codex_bin.front() != '/') {
    later(loop, [done] { done(false, "", "the Codex executable path is not absolute"); });
    return;
  }
  if (!b.remote.empty() && !valid_remote(b.remote)) {
    later(loop, [done] { done(false, "", "--native-remote must be unix:///ABSOLUTE/SOCKET/PATH"); });
    return;
  }
  run_child(loop, {b.codex_bin, "--version"}, b.codex_home, limits.probe_timeout, limits.output_limit,
            [loop, b, done, limits](QueueRunEnd v) {
              if (!v.started) return done(false, "", "cannot run " + b.codex_bin + ": " + uv_strerror(v.spawn_error));
              if (v.timed_out || v.term_signal != 0 || v.exit_status != 0) {
                return done(false, "", "`codex --version` failed: " + first_error_line(v.err + v.out));
              }
              const auto version = parse_codex_version(v.out);
              if (!version) return done(false, "", "unrecognised `codex --version` answer: " + first_line(v.out));
              if (!codex_version_known(*version)) {
                return done(false, *version, "Codex " + *version + " is not a version whose queue was checked");
              }
              run_child(loop, {b.codex_bin, "queue", "--help"}, b.codex_home, limits.probe_timeout,
                        limits.output_limit, [version, done](QueueRunEnd h) {
                          if (h.started && !h.timed_out && h.term_signal == 0 && h.exit_status == 0 &&
                              has_queue_command(h.out + h.err)) {
                            return done(true, *version, "");
                          }
                          done(false, *version, "Codex " + *version + " has no queue command");
                        });
            });
}

void push_codex(uv_loop_t* loop, const CodexBinding& b, std::string text, PushDone done,
                const CodexRunLimits& limits) {
  std::string refusal;
  if (b.codex_bin.empty() || b.codex_bin.front() != '/') refusal = "the Codex executable path is not absolute";
  else if (!valid_thread_id(b.thread_id)) refusal = "the Codex session id is not a UUID";
  else if (!b.remote.empty() && !valid_remote(b.remote)) refusal = "the remote is not unix:///ABSOLUTE/PATH";
  else if (text.empty()) refusal = "nothing to queue";
  else if (text.find('\0') != std::string::npos) refusal = "the text holds a NUL byte";
  if (!refusal.empty()) {
    later(loop, [done, refusal] { done({PushOutcome::refused, refusal}); });
    return;
  }
  // The daemon first, without a process start; `codex queue` when none answers before the request is sent.
  queue_through_app_server(
      loop, app_server_socket(b), b.thread_id, text, limits.push_timeout,
      [loop, b, text, done, limits](DirectOutcome outcome, std::string detail) {
        switch (outcome) {
          case DirectOutcome::accepted:
            return done({PushOutcome::accepted, detail});
          case DirectOutcome::refused:
            return done({PushOutcome::refused, detail});
          case DirectOutcome::ambiguous:
            return done({PushOutcome::ambiguous, "Codex's app server: " + detail});
          case DirectOutcome::unavailable:
            break;
        }
        run_child(loop, queue_argv(b, text), b.codex_home, limits.push_timeout, limits.output_limit,
                  [done](QueueRunEnd end) { done(classify_queue_run(end)); });
      });
}

}  // namespace agentworks::bridge::native
