// Loopback network facts tests wait on: a port nobody listens on, and whether a process holds an
// established TCP connection to a port (e.g. a CLI blocked in a long poll).
#pragma once

#include <sys/types.h>

namespace agentworks::testing {

// A loopback port that was free a moment ago and has no listener (bound, then closed).
int closed_loopback_port();

// True when process `pid` has an ESTABLISHED TCP connection to 127.0.0.1:port (from /proc).
bool has_tcp_connection_to(pid_t pid, int port);

}  // namespace agentworks::testing
