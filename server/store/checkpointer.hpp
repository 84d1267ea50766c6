// Background WAL checkpoints on their own connection and thread, so the event loop's commits never pay for
// copying the WAL into the database (a p99 latency spike otherwise). The loop's connection then runs with
// wal_autocheckpoint=0.
//
// A PASSIVE checkpoint never waits, but under continuous writes it never catches up either: SQLite starts the WAL
// over only after a checkpoint copied every frame, so the file grew without bound (2.2 GB for a 60 MB database).
// Once the WAL holds more than kRestartAbove, the thread runs one RESTART checkpoint: it takes the writer lock for
// the copy of what PASSIVE left (the loop's next commit waits that long on its busy timeout), after which the next
// commit writes the WAL from its start and journal_size_limit cuts the file back.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <thread>

namespace agentworks::server {

class Checkpointer {
 public:
  static constexpr std::int64_t kRestartAbove = 16LL << 20;  // bytes of WAL

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
