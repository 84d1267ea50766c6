// Starts a real agentworks-server for the benchmark in a temporary data directory on a
// free loopback port, and reads process statistics (RSS) from /proc.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace agentworks::bench {

class ServerProcess {
 public:
  ServerProcess() = default;
  ~ServerProcess();
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  // Runs `binary --listen 127.0.0.1:0 --data <tmp> <extra_args…>` with <tmp> a new
  // directory under `parent` (e.g. /tmp, or /dev/shm to take the disk out of the
  // measurement), waits (up to `timeout`) for its "listening on http://127.0.0.1:PORT"
  // line and the owner token.
  bool start(const std::string& binary, const std::vector<std::string>& extra_args, const std::string& parent,
             std::chrono::milliseconds timeout, std::string* error);
  void stop();  // SIGTERM, then SIGKILL after 5 s; removes the data directory

  pid_t pid() const { return pid_; }
  std::uint16_t port() const { return port_; }
  const std::string& token() const { return token_; }
  const std::string& data_dir() const { return data_dir_; }

 private:
  pid_t pid_ = -1;
  std::uint16_t port_ = 0;
  std::string token_;
  std::string data_dir_;
  int stdout_fd_ = -1;
  std::thread drain_;  // keeps reading the server's stdout so it never blocks on a full pipe
};

// Resident set size of a process in KiB (VmRSS in /proc/PID/status), if readable.
std::optional<std::uint64_t> rss_kib(pid_t pid);

// User + system CPU time a process has used so far, in seconds (/proc/PID/stat).
std::optional<double> cpu_seconds(pid_t pid);

}  // namespace agentworks::bench
