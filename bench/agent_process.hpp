// What the agent benchmarks share (agent_functions_main.cpp, crew_conversations_main.cpp): finding the CLI process
// the server started for one execution in /proc and reading its argv, environment and cwd, so that the floor runs
// the very same command directly; its start time; and the arithmetic of paired series.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "testing/process.hpp"

namespace agentworks::bench {

using Clock = std::chrono::steady_clock;

inline std::int64_t ns(Clock::duration d) { return std::chrono::duration_cast<std::chrono::nanoseconds>(d).count(); }

struct CapturedRun {
  std::vector<std::string> argv;
  std::vector<std::string> environment;  // NAME=VALUE
  std::filesystem::path cwd;
  pid_t pid = 0;
};

// The agent CLI process the server started: among processes whose environment holds `env_entry` (e.g.
// AGENTWORKS_CALL_ID=<id>) and whose argv names `cli` (claude, or codex / codex.js), the one whose parent is not
// such a process. argv[0] is made a path (execve needs one).
std::optional<CapturedRun> capture_cli_process(const std::string& env_entry, const std::string& cli);

// CLOCK_BOOTTIME now, in ns: the clock of /proc/PID/stat's starttime.
std::int64_t boottime_ns();
// When `pid` started (CLOCK_BOOTTIME ns, in clock ticks: 10 ms at CLK_TCK 100), or nullopt.
std::optional<std::int64_t> process_start_ns(pid_t pid);

std::string fresh_uuid();

// Exactly `environment`: every inherited variable removed, then the captured ones set.
testing::EnvOverrides exact_env(const std::vector<std::string>& environment);

std::string replace_all(std::string text, const std::string& from, const std::string& to);

// a_i - b_i for each adjacent pair (the runs alternate, so load swings hit both of a pair alike).
std::vector<std::int64_t> paired(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b);

// The agent benchmarks' command line: --runs N (>= 1) into `runs`, --cli claude|codex|both (else `default_cli`);
// the other arguments stay in `rest` (GoogleTest's). nullopt after printing the usage: a bad command line.
std::optional<std::string> parse_agent_bench_args(int argc, char** argv, const std::string& default_cli, int& runs,
                                                  std::vector<char*>& rest);

// An agent benchmark's main: the command line above, a missing CLI made a failure (not a skip), and with --cli
// claude or codex only the suite of that CLI (`Claude<suite>.*` / `Codex<suite>.*`). Exit 2 for a bad command line.
int run_agent_bench(int argc, char** argv, const std::string& default_cli, int& runs, const std::string& suite);

}  // namespace agentworks::bench
