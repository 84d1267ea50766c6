// Watching the server process from the benchmark: RSS (sampled), CPU time, load average.
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <thread>

#include "proc_stats.hpp"

namespace agentworks::bench {

// Samples the server's RSS every 100 ms on its own thread; keeps the maximum.
class RssSampler {
 public:
  explicit RssSampler(pid_t pid) : pid_(pid) {
    if (pid_ > 0) thread_ = std::thread([this] { loop(); });
  }
  ~RssSampler() { stop(); }
  void stop() {
    stop_.store(true);
    if (thread_.joinable()) thread_.join();
  }
  // The largest RSS seen, including one reading taken now.
  std::uint64_t max_kib() {
    if (pid_ > 0) {
      if (auto kib = rss_kib(pid_)) max_.store(std::max(max_.load(), *kib));
    }
    return max_.load();
  }

 private:
  void loop() {
    while (!stop_.load()) {
      if (auto kib = rss_kib(pid_)) max_.store(std::max(max_.load(), *kib));
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  pid_t pid_;
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> max_{0};
  std::thread thread_;
};

// CPU seconds used by the server and by this benchmark process over a window.
class CpuClock {
 public:
  explicit CpuClock(pid_t server) : server_(server), server_start_(server > 0 ? cpu_seconds(server) : std::nullopt),
                                    self_start_(cpu_seconds(::getpid())) {}
  std::string report(double elapsed) const {
    char buf[200];
    const auto server_now = server_ > 0 ? cpu_seconds(server_) : std::nullopt;
    const auto self_now = cpu_seconds(::getpid());
    const double server_used = server_now && server_start_ ? *server_now - *server_start_ : -1;
    const double self_used = self_now && self_start_ ? *self_now - *self_start_ : -1;
    std::snprintf(buf, sizeof buf, "server %.0f%% of one core, benchmark %.0f%% of one core",
                  server_used * 100 / elapsed, self_used * 100 / elapsed);
    return buf;
  }

 private:
  pid_t server_;
  std::optional<double> server_start_;
  std::optional<double> self_start_;
};

inline std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return a + " " + b + " " + c;
}

inline std::string mib_text(std::uint64_t kib) {
  return std::to_string(kib / 1024) + "." + std::to_string((kib % 1024) * 10 / 1024) + " MiB";
}

inline std::string rss_text(pid_t pid) {
  if (pid <= 0) return "n/a (pass --server-pid)";
  const auto kib = rss_kib(pid);
  return kib ? mib_text(*kib) : "n/a";
}

}  // namespace agentworks::bench
