// A child process the test talks to line by line: stdin and stdout are pipes, stderr goes to a file. Used for
// `codex app-server` and for Claude Code in stream-json mode (one long-lived chat fed turn by turn) in the e2e
// tests, and for the node MCP client driver (mcp_driver.hpp) in the integration tests.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "testing/process.hpp"

namespace agentworks::testing {

class PipedProcess {
 public:
  // Starts argv (argv[0] a path) in `cwd` (empty: inherited) in a process group of its own, stderr appended to
  // `stderr_path` (empty: inherited). Throws when it cannot be started.
  PipedProcess(const std::vector<std::string>& argv, const EnvOverrides& env,
               const std::filesystem::path& cwd, const std::filesystem::path& stderr_path);
  PipedProcess(const PipedProcess&) = delete;
  PipedProcess& operator=(const PipedProcess&) = delete;
  ~PipedProcess();  // SIGKILLs the process group and reaps

  pid_t pid() const { return pid_; }
  bool write_line(const std::string& line);
  // The next stdout line, or nullopt at EOF or the deadline.
  std::optional<std::string> read_line(std::chrono::steady_clock::time_point deadline);
  void close_stdin();
  // Exit code after stdin was closed and the process ended, nullopt after the timeout.
  std::optional<int> wait_exit(std::chrono::milliseconds timeout);
  // Everything read from stdout so far (for failure messages).
  const std::string& transcript() const { return transcript_; }

 private:
  pid_t pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  std::string buffer_;
  std::string transcript_;
  std::optional<int> exit_code_;
};

}  // namespace agentworks::testing
