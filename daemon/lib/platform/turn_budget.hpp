// One unit of heavy work per loop turn, shared by every server stream: a received chunk is cached in one journal
// transaction, and between two chunks the loop polls I/O again, so a socket request (status, a hook's lookup)
// waits at most one chunk during a catch-up, never the whole backlog. A stream that finds this turn's unit taken
// pauses its transfer (CURL_WRITEFUNC_PAUSE) and is resumed, first come first served, on a later turn.
#pragma once

#include <uv.h>

#include <deque>
#include <functional>
#include <utility>

namespace agentworks::bridge {

class TurnBudget {
 public:
  explicit TurnBudget(uv_loop_t* loop);
  ~TurnBudget();
  TurnBudget(const TurnBudget&) = delete;
  TurnBudget& operator=(const TurnBudget&) = delete;

  // True (and the unit is taken) when no chunk was handled yet in this loop turn.
  bool try_take();
  // `resume` runs at a later turn with the unit free; `owner` names the waiter for cancel().
  void wait(const void* owner, std::function<void()> resume);
  void cancel(const void* owner);
  void close();

 private:
  static void on_idle(uv_idle_t* idle);
  void run();

  uv_idle_t* idle_;  // active while the unit is taken or someone waits: the next turn resets and resumes
  bool used_ = false;
  std::deque<std::pair<const void*, std::function<void()>>> waiters_;
};

}  // namespace agentworks::bridge
