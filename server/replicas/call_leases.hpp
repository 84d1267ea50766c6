// Leases of running calls. Replicas of a PostgreSQL store: each renews the lease of the calls it runs, and
// interrupts the calls of a replica that stopped renewing (it died: its executions died with it, and a call never
// runs twice). Any store: a served Crew's call whose runner stopped renewing is interrupted the same way (R-R3).
#pragma once

#include <cstdint>
#include <functional>

struct event;
struct event_base;

namespace agentworks::server {

class Store;

class CallLeases {
 public:
  // schedule_commit: makes the batch flush (the renewals and interruptions are written in it).
  CallLeases(event_base* base, Store& store, std::function<void()> schedule_commit);
  ~CallLeases();
  CallLeases(const CallLeases&) = delete;
  CallLeases& operator=(const CallLeases&) = delete;

 private:
  void tick();
  static void tick_cb(int fd, short what, void* arg);
  Store& store_;
  std::function<void()> schedule_commit_;
  event* timer_ = nullptr;
  std::int64_t last_files_sweep_ = -1'000'000'000;  // steady seconds of the last sweep of served calls' files
};

}  // namespace agentworks::server
