#include "hook_run.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "bench_run.hpp"

namespace agentworks::bench {

HookRun run_hook_process(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                         const std::string& stdin_payload) {
  // Everything the child needs is prepared before the clock starts.
  std::vector<std::string> args = argv;
  std::vector<std::string> vars = env;
  std::vector<char*> cargv = exec_strings(args);
  std::vector<char*> cenv = exec_strings(vars);
  int in_pipe[2];
  int out_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) != 0 || ::pipe2(out_pipe, O_CLOEXEC) != 0) {
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  }
  HookRun run;
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::dup2(in_pipe[0], STDIN_FILENO);
    ::dup2(out_pipe[1], STDOUT_FILENO);
    ::execve(cargv[0], cargv.data(), cenv.data());
    ::_exit(127);
  }
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  // Payloads are far below the pipe buffer, so one write never blocks.
  [[maybe_unused]] const auto w = ::write(in_pipe[1], stdin_payload.data(), stdin_payload.size());
  ::close(in_pipe[1]);
  char buf[65536];
  while (true) {
    const ssize_t n = ::read(out_pipe[0], buf, sizeof buf);
    if (n > 0) {
      run.out.append(buf, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  ::close(out_pipe[0]);
  int status = 0;
  rusage usage{};
  while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  run.ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count();
  const auto tv_ns = [](const timeval& tv) {
    return static_cast<std::int64_t>(tv.tv_sec) * 1'000'000'000 + static_cast<std::int64_t>(tv.tv_usec) * 1000;
  };
  run.cpu_ns = tv_ns(usage.ru_utime) + tv_ns(usage.ru_stime);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return run;
}

}  // namespace agentworks::bench
