// Every contract limit of the server in one struct, so tests can reach limits quickly via flags
// (docs/protocol.md, "Server command line").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace agentworks::server {

struct Limits {
  int rate_limit_per_hour = 40;                    // accepted messages per rolling hour per conversation
  int inbox_history = 1000;                        // messages kept per inbox
  int max_inboxes_per_account = 300;
  int max_inboxes_total = 2000;
  std::int64_t inbox_idle_seconds = 604800;        // idle inboxes are removed after this
  std::int64_t expired_retention_seconds = 604800; // removed inboxes answer `expired` this long
  int max_expired_remembered = 2000;
  int max_agents_per_account = 100;
  int max_agents_total = 2000;
  int heartbeat_seconds = 15;
  std::int64_t submission_retention_seconds = 604800;
  // HTTP connections: serve() sets max_connections from RLIMIT_NOFILE (minus headroom) or --max-connections.
  int max_connections = 1000;
  int request_deadline_seconds = 15;  // accept (or a request's first byte) to the complete request
  // Functions (R-F2, R-F6)
  int crew_max_running = 3;                           // running executions per Crew; one more is `busy`
  std::int64_t call_output_ttl_seconds = 604800;      // .calls/<id>/ removed this long after its last change
  std::int64_t call_sweep_interval_seconds = 3600;    // at most one sweep per Crew per interval
  // Replicas: a call is run by the replica that committed it, which renews this lease on its open calls; a
  // call whose lease lapsed (its replica died) is interrupted by any replica, never run again.
  int call_lease_seconds = 30;
  std::int64_t call_upload_limit = 64LL * 1024 * 1024;  // a served call's file stored on the server at most (R-R4)
  // Wakeups (R-W4): due ones fire on a tick of at most one minute.
  int wakeup_tick_seconds = 10;
  // Folders (canonical) where accounts other than the owner may register Crews; none: only the owner may. A shared
  // server must not tell any account which folders exist on its computer.
  std::vector<std::string> crew_roots;
};

}  // namespace agentworks::server
