#include "store/checkpointer.hpp"

#include <spdlog/spdlog.h>

#include <sqlite3.h>

#include <chrono>

#include "agentworks/sqlite.hpp"

namespace agentworks::server {

Checkpointer::Checkpointer(std::filesystem::path db_path) : path_(std::move(db_path)), thread_([this] { run(); }) {}

Checkpointer::~Checkpointer() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

namespace {

// One checkpoint of `mode`; the WAL's size in frames (0 when SQLite could not say). SQLITE_BUSY only means a
// RESTART did not get the lock within the busy timeout: the next round tries again.
int checkpoint(sql::Db& db, int mode) {
  int wal_frames = 0;
  int copied = 0;
  const int rc = sqlite3_wal_checkpoint_v2(db.handle(), nullptr, mode, &wal_frames, &copied);
  if (rc != SQLITE_OK && rc != SQLITE_BUSY) {
    spdlog::warn("background checkpoint: {}", sqlite3_errmsg(db.handle()));
    return 0;
  }
  return wal_frames;
}

}  // namespace

void Checkpointer::run() {
  try {
    sql::Db db(path_.string());
    // A pending RESTART holds new writers back: it waits at most this long for the loop's write to end, then gives
    // up until the next round, so the loop never waits on it for more than that plus the copy.
    sqlite3_busy_timeout(db.handle(), 50);
    sql::Stmt page(db, "PRAGMA page_size");
    const std::int64_t page_size = page.step() ? page.int64(0) : 4096;
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stop_) {
      cv_.wait_for(lock, std::chrono::milliseconds(250));
      if (stop_) break;
      lock.unlock();
      // PASSIVE never blocks the writer; it copies what it can and fsyncs the database file here.
      const std::int64_t frames = checkpoint(db, SQLITE_CHECKPOINT_PASSIVE);
      if (frames * page_size > kRestartAbove) checkpoint(db, SQLITE_CHECKPOINT_RESTART);
      lock.lock();
    }
  } catch (const std::exception& e) {
    spdlog::error("background checkpointer stopped: {}", e.what());
  }
}

}  // namespace agentworks::server
