// Starting and stopping agentworks-bridge from short-lived CLI processes (`agentworks daemon …`, `up`, `down`).
// The bridge daemonizes itself and reports its outcome (docs/protocol.md, "Starting and stopping"); this runs it
// and turns that outcome into a result or an Error.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <string>

namespace agentworks::cli {

// $AGENTWORKS_BRIDGE_BIN, else agentworks-bridge next to this executable, else in the build tree's daemon/
// folder beside cli/, else on PATH. Error(not_found) saying what to install when absent.
std::filesystem::path find_bridge_binary();

// paths::state_dir()/bridge.log.
std::filesystem::path bridge_log_path();

struct BridgeStart {
  bool already_running = false;
  pid_t pid = 0;
  std::string output;  // the bridge's own line ("agentworks-bridge: started (pid N)" / "already running: …")
};

// Runs `agentworks-bridge` (daemon mode) and waits for its outcome. Idempotent: a running bridge is reported as
// already_running. Throws Error(internal) with the bridge's reason when it cannot start.
BridgeStart start_bridge(std::chrono::milliseconds timeout = std::chrono::seconds(30));

struct BridgeStop {
  bool stopped = false;  // false: no bridge was running
  pid_t pid = 0;
};

// The `shutdown` op, then waits until the socket stops answering (and the process is gone).
// Throws Error(busy) when it is still answering after `timeout`.
BridgeStop stop_bridge(std::chrono::milliseconds timeout = std::chrono::seconds(20));

}  // namespace agentworks::cli
