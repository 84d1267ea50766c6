// Codex's queue without starting a process: the bridge speaks to the app-server daemon an interactive Codex TUI
// shares (`$CODEX_HOME/app-server-control/app-server-control.sock`, or the person's --native-remote) itself:
// WebSocket over the Unix socket, `initialize` with the experimental API, then one `thread/queue/add` — the same
// request `codex queue` makes, minus ~165 ms of process start. Anything that fails before that request was sent
// leaves nothing queued, so the caller falls back to `codex queue`; once it was sent, only its answer decides.
#pragma once

#include <uv.h>

#include <chrono>
#include <functional>
#include <string>

#include "native/codex_queue.hpp"

namespace agentworks::bridge::native {

enum class DirectOutcome {
  accepted,     // thread/queue/add answered a result
  refused,      // it answered an error: nothing was queued
  unavailable,  // no daemon, not this user's, or it failed before thread/queue/add was sent: nothing was queued
  ambiguous,    // sent, and no answer before the connection ended or the deadline: it may have been queued
};

// The daemon's socket for this binding: the remote's path when one was named, else CODEX_HOME's (or ~/.codex's).
std::string app_server_socket(const CodexBinding& b);

// One exchange on the loop; `done` runs exactly once, on the loop thread, never from inside this call.
void queue_through_app_server(uv_loop_t* loop, const std::string& socket_path, const std::string& thread_id,
                              const std::string& text, std::chrono::milliseconds timeout,
                              std::function<void(DirectOutcome, std::string detail)> done);

}  // namespace agentworks::bridge::native
