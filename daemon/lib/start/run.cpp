#include "start/run.hpp"

#include <curl/curl.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <uv.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

#include "agentworks/environment.hpp"
#include "agentworks/paths.hpp"
#include "agentworks/sqlite.hpp"
#include "bridge.hpp"
#include "ops/command_table.hpp"
#include "ops/socket_server.hpp"
#include "platform/log.hpp"
#include "start/instance.hpp"
#include "start/private_dir.hpp"

namespace agentworks::bridge {
namespace {

// A start-up outcome goes to exactly one place: the daemonizing parent (which prints it) when there is one,
// else the terminal, so a refusal is printed once.
void report(int fd, const std::string& line) {
  if (fd < 0) return;
  const std::string text = line + "\n";
  [[maybe_unused]] const auto n = ::write(fd, text.data(), text.size());
}

void to_dev_null() {
  const int null_fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null_fd < 0) return;
  ::dup2(null_fd, STDIN_FILENO);
  ::dup2(null_fd, STDOUT_FILENO);
  ::dup2(null_fd, STDERR_FILENO);
  if (null_fd > STDERR_FILENO) ::close(null_fd);
}

void close_all_handles(uv_loop_t* loop) {
  uv_walk(
      loop,
      [](uv_handle_t* h, void*) {
        if (uv_is_closing(h) == 0) uv_close(h, nullptr);  // leftovers only; owned handles are closed already
      },
      nullptr);
}

struct Claimed {
  UniqueFd runtime_fd;
  Instance instance;
};

// The private directories and the one instance of this user. nullopt, with the exit code in *exit_code, when
// this process must not run: the directories are unsafe (1) or another bridge already serves (0).
std::optional<Claimed> claim(const RunOptions& options, const std::filesystem::path& runtime,
                             const std::filesystem::path& state, int* exit_code) {
  UniqueFd runtime_fd;
  ClaimResult result;
  try {
    runtime_fd = open_private_dir(runtime);
    open_owned_dir_tightening(state);
    result = claim_instance(runtime_fd.get(), runtime);
  } catch (const std::exception& e) {
    if (options.ready_fd < 0) std::fprintf(stderr, "agentworks-bridge: %s\n", e.what());
    report(options.ready_fd, std::string("error ") + e.what());
    *exit_code = 1;
    return std::nullopt;
  }
  if (!result.instance) {
    if (options.ready_fd < 0) {
      std::fprintf(stdout, "agentworks-bridge: already running: %s\n", result.already_running.c_str());
    }
    report(options.ready_fd, "running " + result.already_running);
    *exit_code = 0;
    return std::nullopt;
  }
  return Claimed{std::move(runtime_fd), std::move(*result.instance)};
}

BridgeOptions options_from_environment(const std::filesystem::path& state) {
  BridgeOptions bo;
  bo.state_dir = state;
  // Test knob: a shorter heartbeat watchdog, so tests need not wait 45 s for a silent stream.
  if (const char* w = env::get(env::Var::bridge_watchdog_ms); w != nullptr) {
    const long long ms = std::atoll(w);
    if (ms >= 100) bo.stream.watchdog_ms = static_cast<std::uint64_t>(ms);
  }
  // Test knob: a small per-session message quota (R-B9), so quota tests need not send 2,000 messages.
  if (const char* q = env::get(env::Var::bridge_max_messages_per_session); q != nullptr) {
    const long long n = std::atoll(q);
    if (n >= 1) bo.limits.max_messages_per_session = n;
  }
  return bo;
}

// The bridge and its socket server on `loop`, started; throws when the journal or the socket cannot start.
void start_bridge(uv_loop_t* loop, const std::filesystem::path& state, Instance& instance,
                  std::unique_ptr<Bridge>& bridge, std::unique_ptr<SocketServer>& server) {
  bridge = std::make_unique<Bridge>(loop, options_from_environment(state));
  Bridge* b = bridge.get();
  server = std::make_unique<SocketServer>(loop, instance.listener.release(), greeting_line(),
                                          [b](std::string_view line, const Reply::Transport& sink,
                                              const Reply::Connected& connected) {
                                            dispatch(*b, line, sink, connected);
                                          });
  SocketServer* s = server.get();
  bridge->set_shutdown_hook([s](int) { s->close(); });
  bridge->start();
}

// SIGTERM and SIGINT stop the bridge cleanly; their handles close together with the socket server.
void stop_on_signals(uv_loop_t* loop, Bridge& bridge, SocketServer& server) {
  auto* sigterm = new uv_signal_t;
  auto* sigint = new uv_signal_t;
  for (auto* sig : {sigterm, sigint}) {
    uv_signal_init(loop, sig);
    sig->data = &bridge;
  }
  const auto on_signal = [](uv_signal_t* h, int signum) {
    log::info("signal " + std::to_string(signum) + ": stopping");
    static_cast<Bridge*>(h->data)->shutdown(0);
  };
  uv_signal_start(sigterm, on_signal, SIGTERM);
  uv_signal_start(sigint, on_signal, SIGINT);
  bridge.set_shutdown_hook([s = &server, sigterm, sigint](int) {
    s->close();
    for (auto* sig : {sigterm, sigint}) {
      uv_signal_stop(sig);
      uv_close(reinterpret_cast<uv_handle_t*>(sig), [](uv_handle_t* h) { delete reinterpret_cast<uv_signal_t*>(h); });
    }
  });
}

// Says "listening" to the log, the terminal (foreground) or the daemonizing parent, which then lets go of us.
void report_listening(const RunOptions& options, const Instance& instance) {
  log::info("bridge " + std::to_string(::getpid()) + " listening on " + instance.socket_path.string());
  if (options.foreground) {
    std::fprintf(stdout, "agentworks-bridge: listening on %s\n", instance.socket_path.string().c_str());
    std::fflush(stdout);
  }
  report(options.ready_fd, "ok " + std::to_string(::getpid()));
  if (options.ready_fd >= 0) {
    ::close(options.ready_fd);
    to_dev_null();
  }
}

// Runs the loop until the handles left behind are closed, closes it and gives the instance up. Returns
// uv_loop_close's result.
int close_loop(uv_loop_t* loop, Instance& instance, int runtime_fd) {
  close_all_handles(loop);
  uv_run(loop, UV_RUN_DEFAULT);
  const int rc = uv_loop_close(loop);
  release_instance(instance, runtime_fd);
  return rc;
}

}  // namespace

int run_bridge(const RunOptions& options) {
  // Everything the bridge creates is private whatever umask it inherited: spdlog's log files (and their rotated
  // copies) are created with fopen, which has no mode argument.
  ::umask(077);
  const std::filesystem::path runtime = paths::runtime_dir();
  const std::filesystem::path state = paths::state_dir();
  int code = 0;
  auto claimed = claim(options, runtime, state, &code);
  if (!claimed) return code;
  log::init(state / "bridge.log", options.foreground);
  curl_global_init(CURL_GLOBAL_DEFAULT);
  std::signal(SIGPIPE, SIG_IGN);

  uv_loop_t loop;
  uv_loop_init(&loop);
  {
    std::unique_ptr<Bridge> bridge;
    std::unique_ptr<SocketServer> server;
    try {
      start_bridge(&loop, state, claimed->instance, bridge, server);
    } catch (const std::exception& e) {
      log::error(std::string("cannot start: ") + e.what());
      if (options.ready_fd < 0) std::fprintf(stderr, "agentworks-bridge: cannot start: %s\n", e.what());
      report(options.ready_fd, std::string("error cannot start: ") + e.what());
      server.reset();
      bridge.reset();
      close_loop(&loop, claimed->instance, claimed->runtime_fd.get());
      return 1;
    }
    stop_on_signals(&loop, *bridge, *server);
    report_listening(options, claimed->instance);
    uv_run(&loop, UV_RUN_DEFAULT);
    code = bridge->exit_code();
    bridge->shutdown(code);
    server.reset();
    bridge.reset();
  }
  if (close_loop(&loop, claimed->instance, claimed->runtime_fd.get()) != 0) {
    log::warn("event loop closed with handles still open");
  }
  curl_global_cleanup();
  log::info("bridge stopped");
  log::flush();
  return code;
}

int daemonize_and_run() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    std::perror("agentworks-bridge: pipe");
    return 1;
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    std::perror("agentworks-bridge: fork");
    return 1;
  }
  if (pid == 0) {
    ::close(fds[0]);
    ::setsid();
    // Second fork: the daemon is not a session leader, so it can never regain a controlling terminal.
    const pid_t grandchild = ::fork();
    if (grandchild < 0) _exit(1);
    if (grandchild > 0) _exit(0);
    RunOptions o;
    o.ready_fd = fds[1];
    _exit(run_bridge(o));
  }
  ::close(fds[1]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  std::string answer;
  char buf[512];
  ssize_t n = 0;
  while ((n = ::read(fds[0], buf, sizeof buf)) > 0) {
    answer.append(buf, static_cast<std::size_t>(n));
    if (answer.find('\n') != std::string::npos) break;
  }
  ::close(fds[0]);
  while (!answer.empty() && answer.back() == '\n') answer.pop_back();
  if (answer.rfind("ok ", 0) == 0) {
    std::printf("agentworks-bridge: started (pid %s)\n", answer.substr(3).c_str());
    return 0;
  }
  if (answer.rfind("running ", 0) == 0) {
    std::printf("agentworks-bridge: already running: %s\n", answer.substr(8).c_str());
    return 0;
  }
  if (answer.rfind("error ", 0) == 0) {
    std::fprintf(stderr, "agentworks-bridge: %s\n", answer.substr(6).c_str());
    return 1;
  }
  std::fprintf(stderr, "agentworks-bridge: the daemon exited before it was ready; see its log in %s\n",
               paths::state_dir().c_str());
  return 1;
}

}  // namespace agentworks::bridge
