// The wakeup scheduler (R-W4): a tick of at most one minute turns due wakeups into notices in the open batch, for
// agents whose chat receives on this replica now; the commit delivers them like any message.
#pragma once

#include <functional>

#include "store/wakeups_store.hpp"

struct event;
struct event_base;

namespace agentworks::server {

class Presence;
class Store;

class WakeupTicker {
 public:
  // schedule_commit: makes the batch flush (the fired wakeups are written in it).
  WakeupTicker(event_base* base, Store& store, Presence& presence, int period_seconds,
               std::function<void()> schedule_commit);
  ~WakeupTicker();
  WakeupTicker(const WakeupTicker&) = delete;
  WakeupTicker& operator=(const WakeupTicker&) = delete;

  void tick();

 private:
  static void tick_cb(int fd, short what, void* arg);
  Store& store_;
  Presence& presence_;
  std::function<void()> schedule_commit_;
  event* timer_ = nullptr;
  WakeupScan scan_;  // where the next tick's scan goes on from
};

}  // namespace agentworks::server
