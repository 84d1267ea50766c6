// Starting and running the bridge process: private directories, race-free claim of the socket, the loop,
// signals, clean shutdown. main.cpp only parses the command line.
#pragma once

namespace agentworks::bridge {

struct RunOptions {
  bool foreground = false;
  // In daemon mode: the write end of a pipe to the waiting parent. One line is written once the outcome is
  // known: "ok <pid>", "running <detail>" or "error <message>".
  int ready_fd = -1;
};

// Returns the process exit code.
int run_bridge(const RunOptions& options);

// Forks: the child becomes the daemon (new session, stdio to /dev/null once started) and this process returns
// after it reported readiness, with the exit code for the starter.
int daemonize_and_run();

}  // namespace agentworks::bridge
