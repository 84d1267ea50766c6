#include "ui/state_watcher.hpp"

#include <utility>

namespace agentworks::cli::ui {

StateWatcher::StateWatcher(std::function<std::string()> fetch, std::chrono::milliseconds period)
    : fetch_(std::move(fetch)), period_(period) {}

StateWatcher::~StateWatcher() { stop(); }

void StateWatcher::start() {
  // The first state is fetched before anything is served, so the page never starts empty.
  std::string first = fetch_();
  {
    std::lock_guard lock(mutex_);
    snapshot_ = {1, std::move(first)};
  }
  thread_ = std::thread([this] { loop(); });
}

void StateWatcher::stop() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void StateWatcher::kick() {
  {
    std::lock_guard lock(mutex_);
    kicked_ = true;
  }
  wake_.notify_all();
}

Snapshot StateWatcher::current() {
  std::lock_guard lock(mutex_);
  return snapshot_;
}

bool StateWatcher::stopping() {
  std::lock_guard lock(mutex_);
  return stop_;
}

Snapshot StateWatcher::wait_newer(std::uint64_t seen, std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  changed_.wait_until(lock, deadline, [&] { return stop_ || snapshot_.version > seen; });
  return snapshot_;
}

void StateWatcher::loop() {
  std::unique_lock lock(mutex_);
  while (!stop_) {
    wake_.wait_for(lock, period_, [&] { return stop_ || kicked_; });
    if (stop_) break;
    kicked_ = false;
    lock.unlock();
    std::string next = fetch_();  // the bridge may take a while; nobody waits on the lock meanwhile
    lock.lock();
    if (next != snapshot_.json) {
      snapshot_ = {snapshot_.version + 1, std::move(next)};
      changed_.notify_all();
    }
  }
}

}  // namespace agentworks::cli::ui
