// Background WAL checkpoints on their own connection and thread, so the event loop's commits never pay for
// copying the WAL into the database (a p99 latency spike otherwise). The loop's connection then runs with
// wal_autocheckpoint=0.
#pragma once

#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>

namespace agentworks::server {

class Checkpointer {
 public:
  explicit Checkpointer(std::filesystem::path db_path);
  ~Checkpointer();
  Checkpointer(const Checkpointer&) = delete;
  Checkpointer& operator=(const Checkpointer&) = delete;

 private:
  void run();
  std::filesystem::path path_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace agentworks::server
