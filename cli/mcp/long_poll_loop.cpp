#include "mcp/long_poll_loop.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>

#include "agentworks/error.hpp"

namespace agentworks::cli::mcp {

using std::chrono::milliseconds;

LongPollLoop::LongPollLoop(std::string what, Poll poll) : what_(std::move(what)), poll_(std::move(poll)) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
    throw Error(ErrorCode::internal, "cannot create the " + what_ + "'s stop pipe: " + std::strerror(errno));
  }
  stop_read_ = UniqueFd(fds[0]);
  stop_write_ = UniqueFd(fds[1]);
}

LongPollLoop::~LongPollLoop() {
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  // Ends a parked poll at once: the thread is usually inside one.
  [[maybe_unused]] const auto n = ::write(stop_write_.get(), "x", 1);
  if (thread_.joinable()) thread_.join();
}

void LongPollLoop::start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] { run(); });
}

bool LongPollLoop::stopping() {
  const std::lock_guard lock(mutex_);
  return stop_;
}

milliseconds LongPollLoop::next_wait() {
  try {
    return poll_(stop_read_.get());
  } catch (const Error&) {
    return kIdle;  // not attached yet, no bridge, or stopping
  } catch (const std::exception& e) {
    std::cerr << "agentworks mcp: " << what_ << ": " << e.what() << std::endl;
    return kIdle;
  }
}

void LongPollLoop::run() {
  while (!stopping()) {
    const milliseconds wait = next_wait();
    if (wait == kEnd) return;
    if (wait == kAtOnce) continue;
    std::unique_lock lock(mutex_);
    if (wake_.wait_for(lock, wait, [this] { return stop_; })) return;
  }
}

}  // namespace agentworks::cli::mcp
