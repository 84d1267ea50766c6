#include "replicas/call_leases.hpp"

#include <event2/event.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "clock.hpp"
#include "store/calls_store.hpp"
#include "store/crew_sessions_store.hpp"
#include "store/runners_store.hpp"
#include "store/store.hpp"

namespace agentworks::server {

CallLeases::CallLeases(event_base* base, Store& store, std::function<void()> schedule_commit)
    : store_(store), schedule_commit_(std::move(schedule_commit)) {
  timer_ = event_new(base, -1, EV_PERSIST, &CallLeases::tick_cb, this);
  // Renewed three times per lease: one slow round does not let a live replica's calls lapse.
  const int period_ms = std::max(100, store_.limits().call_lease_seconds * 1000 / 3);
  const timeval tv{period_ms / 1000, (period_ms % 1000) * 1000};
  event_add(timer_, &tv);
}

CallLeases::~CallLeases() {
  if (timer_ != nullptr) event_free(timer_);
}

void CallLeases::tick_cb(int, short, void* arg) { static_cast<CallLeases*>(arg)->tick(); }

void CallLeases::tick() {
  try {
    std::size_t lapsed = 0;
    // R-R4: served calls' files leave after the same retention as a call's folder, looked for once per sweep
    // interval.
    const std::int64_t at = std::chrono::duration_cast<std::chrono::seconds>(
                                std::chrono::steady_clock::now().time_since_epoch()).count();
    const bool sweep = at - last_files_sweep_ >= store_.limits().call_sweep_interval_seconds;
    if (sweep) last_files_sweep_ = at;
    store_.in_request([&] {
      if (sweep) drop_stored_files(store_, now() - store_.limits().call_output_ttl_seconds);
      if (store_.engine() != db::Engine::postgresql) {
        // One SQLite server owns its calls; only a served Crew's runner holds leases (R-R3).
        lapsed = interrupt_open_calls(store_, OpenCalls::lapsed_served).size();
        return;
      }
      renew_call_leases(store_);
      lapsed = interrupt_open_calls(store_, OpenCalls::lapsed_leases).size();
      renew_turn_leases(store_);  // a Crew agent's conversation turns (R-K2) by the same rule
      interrupt_cut_turns(store_, CutTurns::lapsed_elsewhere);
    });
    if (lapsed > 0) spdlog::warn("{} function call(s) whose replica or runner stopped are now interrupted", lapsed);
  } catch (const std::exception& e) {
    spdlog::warn("cannot renew the leases of running calls (retrying): {}", e.what());
  }
  schedule_commit_();
}

}  // namespace agentworks::server
