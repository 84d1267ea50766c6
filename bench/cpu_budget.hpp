// Where a load run's CPU went, per accepted send, and the rates that cost allows: what no scheduling or locking
// change can pass while a send costs that much. The servers' event loops run on their main threads, and a
// PostgreSQL store's backends are its postmaster's children.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <vector>

namespace agentworks::bench {

class CpuBudget {
 public:
  struct PerSend {
    double servers_us = 0;   // the server processes, every thread
    double loops_us = 0;     // of that, their event-loop threads
    double postgres_us = 0;  // the PostgreSQL cluster's processes (0 without one)
    double total_us = 0;
    int cores = 0;
    double loops_ceiling_per_s = 0;  // the loop threads each busy all the time, sends spread evenly over them
    double cores_ceiling_per_s = 0;  // every core busy with servers and PostgreSQL only
  };

  // Starts counting now. `postmaster` 0: no PostgreSQL.
  CpuBudget(std::vector<pid_t> servers, pid_t postmaster);
  // Stops counting (the end of the load); what ran after it is not counted.
  void stop();
  // False when a counter could not be read (a process ended): nothing to report.
  bool valid() const { return valid_; }
  PerSend per_send(std::uint64_t sends) const;

 private:
  struct Reading {
    double servers = 0;
    double loops = 0;
    double postgres = 0;
  };
  bool read(Reading& out) const;

  std::vector<pid_t> servers_;
  pid_t postmaster_;
  Reading start_;
  Reading used_;
  bool valid_ = true;
};

}  // namespace agentworks::bench
