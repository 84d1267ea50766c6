// Parked channel_take requests: the Claude channel's long poll (docs/protocol.md "channel_take"). A waiter is
// resumed when its attachment's stream caches a message, when that stream closes (detach, fence, reopen), or at
// its deadline, whichever comes first. Resumes run from a timer on a later loop turn, never inside the stream's
// callback. A waiter whose client has gone is dropped without resuming, so nothing is offered to nobody.
#pragma once

#include <uv.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "request/reply.hpp"

namespace agentworks::bridge {

class ChannelWaiters {
 public:
  // Answers a resumed waiter; `remaining` is what is left of its wait (zero: answer now, whatever there is).
  using Resume = std::function<void(const Reply& reply, std::chrono::milliseconds remaining)>;
  // A client reconnecting leaves its old request parked until it is seen gone; more than this many for one
  // attachment and the oldest is answered at once.
  static constexpr std::size_t kMaxPerAttachment = 4;

  explicit ChannelWaiters(uv_loop_t* loop);
  ~ChannelWaiters();
  ChannelWaiters(const ChannelWaiters&) = delete;
  ChannelWaiters& operator=(const ChannelWaiters&) = delete;

  void park(const std::string& attachment_id, std::chrono::milliseconds wait, Reply reply, Resume resume);
  // Every waiter of the attachment resumes on a later loop turn with what is left of its wait.
  void wake(const std::string& attachment_id);
  // Drops every waiter unanswered (the bridge stops and its clients see their connections close).
  void stop();
  // The parked takes of the attachment whose clients are still there (a Claude channel listening now).
  std::size_t listening(const std::string& attachment_id) const;

 private:
  using Clock = std::chrono::steady_clock;
  struct Waiter {
    std::string attachment_id;
    Clock::time_point deadline;
    Reply reply;
    Resume resume;
    bool woken = false;
  };
  void arm();
  void run_due();

  uv_timer_t* timer_;
  std::vector<Waiter> waiters_;  // few: one per channel child, so a scan beats an index
};

}  // namespace agentworks::bridge
