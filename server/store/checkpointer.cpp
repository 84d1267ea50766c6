#include "store/checkpointer.hpp"

#include <spdlog/spdlog.h>

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

void Checkpointer::run() {
  try {
    sql::Db db(path_.string());
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stop_) {
      cv_.wait_for(lock, std::chrono::milliseconds(250));
      if (stop_) break;
      lock.unlock();
      try {
        // PASSIVE never blocks the writer; it copies what it can and fsyncs the database file here.
        db.exec("PRAGMA wal_checkpoint(PASSIVE)");
      } catch (const std::exception& e) {
        spdlog::warn("background checkpoint: {}", e.what());
      }
      lock.lock();
    }
  } catch (const std::exception& e) {
    spdlog::error("background checkpointer stopped: {}", e.what());
  }
}

}  // namespace agentworks::server
