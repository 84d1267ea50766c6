// Processes for the SIGKILL cycle benchmark (kill_cycles_main.cpp): children started in a private temp HOME
// with their output in files, killed with SIGKILL and reaped, and one-shot runs (the CLI) with captured stdout
// and a timeout. Every child dies with the benchmark (PR_SET_PDEATHSIG).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace agentworks::bench {

// The benchmark's environment with HOME, XDG_* and AGENTWORKS_* pointed into `root` (home, config, state, data,
// run; created 0700).
std::vector<std::string> temp_home_env(const std::string& root);

// Starts argv with `env`, stdout and stderr appended to `out_path`. -1 on failure.
pid_t spawn_child(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                  const std::string& out_path);
// SIGKILL and reap; pid becomes -1.
void kill_child(pid_t& pid);
// True while the child has not exited (reaps it when it has; pid becomes -1).
bool child_alive(pid_t& pid);

struct RunResult {
  int exit_code = -1;  // 128 + signal when killed, -1 when it could not start or timed out
  std::string out;
};
RunResult run_capture(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                      const std::optional<std::string>& stdin_data, std::chrono::milliseconds timeout);

// A loopback TCP port that was free a moment ago.
int free_port();

// PRAGMA integrity_check of a SQLite file opened read-only ("ok" when healthy, else the problem).
std::string integrity_of(const std::string& db_path);

}  // namespace agentworks::bench
