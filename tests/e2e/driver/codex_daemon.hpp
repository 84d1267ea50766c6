// Stopping the background app-server daemon a Codex TUI starts (it outlives the TUI and would keep running the
// hooks and MCP servers of a finished test).
#pragma once

#include <filesystem>

#include "testing/process.hpp"

namespace agentworks::e2e {

// Stops the daemon of env's CODEX_HOME (no-op without one): its `daemon pid-update-loop` helper first (it would
// start a new daemon), then a clean `codex app-server daemon stop` (it removes the socket in the shared
// /tmp/codex-daemon-<uid>/), then every other process still running a Codex copied into that CODEX_HOME.
void stop_codex_daemon(const testing::EnvOverrides& env, const std::filesystem::path& project);

}  // namespace agentworks::e2e
