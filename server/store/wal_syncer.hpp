// The SQLite store's WAL made durable off the event loop. The loop commits with synchronous=NORMAL (the commit
// writes the WAL but does not flush it) and asks for a sync; this thread runs fdatasync on the WAL and reports
// which requests that sync covered. Requests that arrive while a sync runs are covered by the next one, so a slow
// disk makes the batches bigger instead of stopping the loop. Answers wait for their sync (http/batch.cpp), so a
// receipt still means the message is on disk.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace agentworks::server {

// fdatasync of the file at `path`, through one descriptor kept open so that a write-back error is reported to it:
// 0, or the errno.
std::function<int()> file_flush(const std::filesystem::path& path);

class WalSyncer {
 public:
  // One flush of everything written so far: 0, or the errno that says why it failed.
  using SyncFn = std::function<int()>;
  // One finished sync: every ticket up to `through` is durable when ok, unknown (answer unavailable) when not.
  struct Outcome {
    std::uint64_t through = 0;
    bool ok = true;
    std::string error;
    std::chrono::nanoseconds took{0};  // how long the flush ran
  };

  explicit WalSyncer(const std::filesystem::path& wal_path) : WalSyncer(file_flush(wal_path)) {}
  explicit WalSyncer(SyncFn sync);  // tests: a sync that can fail or stall
  ~WalSyncer();
  WalSyncer(const WalSyncer&) = delete;
  WalSyncer& operator=(const WalSyncer&) = delete;

  // Call after a commit: returns its ticket, durable once an Outcome's `through` reaches it.
  std::uint64_t request();
  // Readable (eventfd) when an outcome is waiting; collect() takes them in order and clears it.
  int wake_fd() const { return wake_fd_; }
  std::vector<Outcome> collect();
  // Blocks until a sync covering `ticket` has finished (shutdown: the last answers go out durable).
  void wait_for(std::uint64_t ticket);

 private:
  void run();
  SyncFn sync_;
  int wake_fd_ = -1;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::uint64_t requested_ = 0;
  std::uint64_t finished_ = 0;
  std::vector<Outcome> outcomes_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace agentworks::server
