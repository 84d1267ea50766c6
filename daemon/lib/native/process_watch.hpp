// Tells the loop when one process (pid + start time) ends: a pidfd polled for readability (Linux >= 5.3), else a
// check every 500 ms. Destroying the watch stops it; the callback never runs after that (it may destroy the
// watch itself).
#pragma once

#include <uv.h>

#include <functional>

#include "agentworks/process_ancestry.hpp"

namespace agentworks::bridge::native {

class ProcessWatch {
 public:
  // `ended` runs once, on the loop, when `key` is no longer running (at once when it already is not).
  ProcessWatch(uv_loop_t* loop, process::ProcessKey key, std::function<void()> ended);
  ~ProcessWatch();
  ProcessWatch(const ProcessWatch&) = delete;
  ProcessWatch& operator=(const ProcessWatch&) = delete;

  const process::ProcessKey& key() const { return key_; }

 private:
  static void on_poll(uv_poll_t* handle, int status, int events);
  static void on_tick(uv_timer_t* handle);
  void fire();
  void close_handles();

  process::ProcessKey key_;
  std::function<void()> ended_;
  int pidfd_ = -1;
  uv_poll_t* poll_ = nullptr;
  uv_timer_t* timer_ = nullptr;
};

}  // namespace agentworks::bridge::native
