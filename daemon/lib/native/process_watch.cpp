#include "native/process_watch.hpp"
#include "platform/uv_handle.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>

namespace agentworks::bridge::native {

namespace {

constexpr std::uint64_t kTickMs = 500;

bool running(const process::ProcessKey& key) {
  const auto now = process::key_of(key.pid);
  return now && now->start == key.start;
}

int open_pidfd(long pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(::syscall(SYS_pidfd_open, static_cast<pid_t>(pid), 0));
#else
  (void)pid;
  return -1;
#endif
}

}  // namespace

ProcessWatch::ProcessWatch(uv_loop_t* loop, process::ProcessKey key, std::function<void()> ended)
    : key_(std::move(key)), ended_(std::move(ended)) {
  // Opened first, then the start time checked: a pid recycled before the open is never watched instead.
  pidfd_ = open_pidfd(key_.pid);
  if (pidfd_ >= 0) {
    poll_ = new uv_poll_t;
    if (uv_poll_init(loop, poll_, pidfd_) == 0) {
      poll_->data = this;
      uv_poll_start(poll_, UV_READABLE, &ProcessWatch::on_poll);
    } else {
      delete poll_;
      poll_ = nullptr;
      ::close(pidfd_);
      pidfd_ = -1;
    }
  }
  // Without a pidfd, or when the process ended before it was opened, a timer checks (its first tick at once).
  timer_ = open_timer(loop, this);
  uv_timer_start(timer_, &ProcessWatch::on_tick, 0, poll_ != nullptr ? 0 : kTickMs);
}

ProcessWatch::~ProcessWatch() { close_handles(); }

void ProcessWatch::close_handles() {
  if (poll_ != nullptr) {
    // The pidfd is closed only once libuv has let go of the handle.
    poll_->data = reinterpret_cast<void*>(static_cast<std::intptr_t>(pidfd_));
    uv_close(reinterpret_cast<uv_handle_t*>(poll_), [](uv_handle_t* h) {
      ::close(static_cast<int>(reinterpret_cast<std::intptr_t>(h->data)));
      delete reinterpret_cast<uv_poll_t*>(h);
    });
    poll_ = nullptr;
  } else if (pidfd_ >= 0) {
    ::close(pidfd_);
  }
  pidfd_ = -1;
  close_handle(timer_);
}

void ProcessWatch::on_poll(uv_poll_t* handle, int, int) {
  if (auto* self = static_cast<ProcessWatch*>(handle->data)) self->fire();
}

void ProcessWatch::on_tick(uv_timer_t* handle) {
  auto* self = static_cast<ProcessWatch*>(handle->data);
  if (self != nullptr && !running(self->key_)) self->fire();
}

void ProcessWatch::fire() {
  // Once: the handles stop first, then the callback runs last (it may destroy this watch).
  close_handles();
  auto ended = std::move(ended_);
  ended_ = nullptr;
  if (ended) ended();
}

}  // namespace agentworks::bridge::native
