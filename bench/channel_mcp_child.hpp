// `agentworks mcp serve --provider claude --claude-channel` as a child of the benchmark, driven like Claude Code
// drives it: newline-delimited JSON-RPC over its stdin/stdout. The benchmark is its provider ancestor (the first
// non-shell parent), so the bridge resolves it by the benchmark's own process key. Dies with the benchmark.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace agentworks::bench {

class ChannelMcpChild {
 public:
  ChannelMcpChild() = default;
  ~ChannelMcpChild();
  ChannelMcpChild(const ChannelMcpChild&) = delete;
  ChannelMcpChild& operator=(const ChannelMcpChild&) = delete;

  // Starts `cli mcp serve --provider claude --claude-channel` with `env` (the bridge's temp HOME).
  bool start(const std::string& cli, const std::vector<std::string>& env, std::string* error);
  // Sends initialize, waits for its answer, then notifications/initialized (which starts the channel).
  bool initialize(std::chrono::milliseconds timeout, std::string* error);
  // The next stdout line, or nullopt when none arrives before `deadline` (or the child closed stdout).
  std::optional<std::string> read_line(std::chrono::steady_clock::time_point deadline);
  void stop();  // closes stdin, then SIGKILL after 5 s
  pid_t pid() const { return pid_; }

 private:
  bool write_line(const std::string& line);

  pid_t pid_ = -1;
  int in_fd_ = -1;   // the child's stdin
  int out_fd_ = -1;  // the child's stdout
  std::string buffer_;
};

}  // namespace agentworks::bench
