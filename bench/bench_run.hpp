// What every benchmark program shares: a watchdog that SIGKILLs the processes it started and exits when a run
// hangs, and the paths of the programs built beside it.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

namespace agentworks::bench {

// After `seconds`, kills every watched process, prints "<program>: watchdog expired" and exits with 3. From now on
// every child started through the testing library dies with the benchmark (PR_SET_PDEATHSIG).
void arm_watchdog(const char* program, unsigned seconds);
// What every benchmark main does once its options are parsed: arms the watchdog, returns run()'s exit code, and
// when run() throws prints "<program>: <what>", kills every watched process and returns 2.
int run_with_watchdog(const char* program, unsigned seconds, const std::function<int()>& run);
// Up to four processes at a time; watching pid 0 or a pid twice is a no-op.
void watch_process(pid_t pid);
void unwatch_process(pid_t pid);
// SIGKILLs every watched process (the main's own failure path).
void kill_watched();

// A program of this build tree: `dir` "" is next to this binary, else a sibling build folder ("server", "daemon",
// "hooks", "cli"). Falls back to `name` (PATH) when /proc/self/exe cannot be read.
std::string built_program(const std::string& dir, const std::string& name);

// The null-terminated pointer array execve and posix_spawn take, pointing into `owned` (which must outlive it).
std::vector<char*> exec_strings(std::vector<std::string>& owned);

}  // namespace agentworks::bench
