// Runs a program as a whole process the way an agent CLI runs a hook: fork + execve, the payload on its stdin,
// its stdout collected until EOF, then waitpid. The time covers all of it (what the person waits for).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace agentworks::bench {

struct HookRun {
  std::int64_t ns = 0;      // fork to reaped (wall clock)
  std::int64_t cpu_ns = 0;  // the child's user + system CPU time (steady under a busy machine)
  int exit_code = -1;   // 128 + signal when killed
  std::string out;
};

// `env` entries are "KEY=VALUE". Throws std::runtime_error when the process cannot be started.
HookRun run_hook_process(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                         const std::string& stdin_payload);

}  // namespace agentworks::bench
