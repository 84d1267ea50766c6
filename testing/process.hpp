// Spawning child processes for integration tests: one-shot runs with captured output and a timeout, and
// long-running children (servers, daemons, blocked CLI calls) whose output goes to files.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace agentworks::testing {

// Environment changes for a child: a value sets the variable, nullopt removes it. Everything else is inherited.
using EnvOverrides = std::map<std::string, std::optional<std::string>>;

// Later entries win.
EnvOverrides merge_env(const EnvOverrides& base, const EnvOverrides& extra);

// Removes every inherited variable whose name starts with `prefix` (e.g. "XDG_").
EnvOverrides unset_inherited(const std::string& prefix);

// This process's environment with `env` applied, as NAME=VALUE entries (what a child is started with).
std::vector<std::string> child_environment(const EnvOverrides& env);

struct ProcessResult {
  int exit_code = -1;  // 128 + signal when killed by a signal
  std::string out;
  std::string err;
  bool timed_out = false;  // the child was killed because it ran past the timeout
};

struct RunOptions {
  EnvOverrides env;
  std::optional<std::string> stdin_data;  // nullopt: stdin is /dev/null
  std::chrono::milliseconds timeout{30'000};
  std::filesystem::path cwd;  // empty: inherit
};

// From now on every child this process starts (run_process, Child) gets SIGKILL when this process dies
// (PR_SET_PDEATHSIG): the benchmarks turn it on so a crashed run leaves nothing behind. Off by default (the signal
// follows the starting thread, and tests start children from worker threads).
void set_children_die_with_parent(bool on);

// Runs argv[0] (a path) to completion, capturing stdout and stderr. Never hangs longer than the timeout.
ProcessResult run_process(const std::vector<std::string>& argv, const RunOptions& options = {});

// A child that keeps running while the test talks to it. Its stdout and stderr go to files so it can never
// block on a full pipe. The destructor SIGKILLs and reaps it.
class Child {
 public:
  Child() = default;
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  Child(Child&& other) noexcept;
  Child& operator=(Child&& other) noexcept;
  ~Child();

  static Child start(const std::vector<std::string>& argv, const EnvOverrides& env,
                     const std::filesystem::path& stdout_path, const std::filesystem::path& stderr_path,
                     const std::optional<std::string>& stdin_data = std::nullopt);

  pid_t pid() const { return pid_; }
  bool started() const { return pid_ > 0; }
  // True while the process has not exited (reaps it if it has).
  bool running();
  // Exit code once exited (128 + signal when killed), else nullopt after the deadline.
  std::optional<int> wait_exit(std::chrono::milliseconds timeout);
  void signal(int sig);
  // SIGKILL and reap; returns the exit code. No-op when not running.
  int kill_and_wait();

  std::string read_stdout() const;
  std::string read_stderr() const;
  const std::filesystem::path& stdout_path() const { return stdout_path_; }
  const std::filesystem::path& stderr_path() const { return stderr_path_; }

 private:
  pid_t pid_ = -1;
  std::optional<int> exit_code_;
  std::filesystem::path stdout_path_;
  std::filesystem::path stderr_path_;
};

std::string read_file(const std::filesystem::path& path);

// True while `pid` exists and is not a zombie (daemons started by the programs under test are not our children).
bool process_alive(pid_t pid);

}  // namespace agentworks::testing
