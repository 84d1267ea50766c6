#include "wakeups/wakeup_ticker.hpp"

#include <event2/event.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "clock.hpp"
#include "request/presence.hpp"
#include "store/store.hpp"
#include "store/wakeups_store.hpp"

namespace agentworks::server {

WakeupTicker::WakeupTicker(event_base* base, Store& store, Presence& presence, int period_seconds,
                           std::function<void()> schedule_commit)
    : store_(store), presence_(presence), schedule_commit_(std::move(schedule_commit)) {
  timer_ = event_new(base, -1, EV_PERSIST, &WakeupTicker::tick_cb, this);
  const timeval tv{std::clamp(period_seconds, 1, 60), 0};
  event_add(timer_, &tv);
}

WakeupTicker::~WakeupTicker() {
  if (timer_ != nullptr) event_free(timer_);
}

void WakeupTicker::tick_cb(int, short, void* arg) { static_cast<WakeupTicker*>(arg)->tick(); }

void WakeupTicker::tick() {
  int fired = 0;
  try {
    store_.in_request([&] {
      fired = fire_due_wakeups(store_, now(), [this](const std::string& agent_id) {
        return presence_.agent_connected(agent_id);
      }, scan_);
    });
  } catch (const std::exception& e) {
    spdlog::warn("cannot fire due wakeups (the next tick retries): {}", e.what());
    return;
  }
  if (fired > 0) {
    spdlog::info("{} wakeup(s) due", fired);
    schedule_commit_();
  }
}

}  // namespace agentworks::server
