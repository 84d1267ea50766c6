// Claude Code's own per-session inbox as a native route (R-N1..R-N4): a running Claude Code 2.1.332
// session listens on a private Unix socket and takes one NDJSON `user` frame as its next input, waking an idle
// session. Undocumented and version-sensitive, so everything fails closed (the Stop hook delivers instead). The
// facts this file relies on (field types, modes, paths, limits) are in docs/native-routes.md, "Claude session
// inbox". Binding is pure file reads; the push is async on the libuv loop.
#pragma once

#include <uv.h>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "native/push_result.hpp"

namespace agentworks::bridge::native {

struct ClaudeBinding {
  long pid = 0;
  std::string proc_start;   // field 22 of /proc/PID/stat, decimal (the registration's "procStart")
  std::string session_id;   // the registration's "sessionId" (= the hooks' session_id)
  std::string socket_path;  // "messagingSocketPath"
  std::string token;        // "peerToken" from the key file
  std::string version;      // "2.1.332"
  std::string entrypoint;   // "cli" (TUI), "sdk-cli" (-p), ... ("" when absent); for status only
};

struct ClaudeBind {
  std::optional<ClaudeBinding> binding;
  std::string reason;  // when not bound: one sentence for the person (status), e.g. "Claude Code 2.1.197 has no
                       // session inbox"
};

// Frames larger than this are refused before connecting (2.1.332 closed the connection on a ~2 MB frame and took
// a ~1 MB one): the router sends what does not fit in a later frame.
inline constexpr std::size_t kClaudeMaxFrameBytes = 512 * 1024;
// Connect + write + wait for the session to close the connection.
inline constexpr std::chrono::milliseconds kClaudePushTimeout{5000};

// <config dir>/sessions, config dir = the Claude process's CLAUDE_CONFIG_DIR when set (non-empty), else
// HOME/.claude.
std::filesystem::path claude_sessions_dir(const std::string& claude_config_dir, const std::string& home);

// Reads EXACTLY <sessions_dir>/<pid>.json and the key file next to it. Binds only when pid, procStart and
// sessionId all match, peerProtocol and version are known, registration, key file and socket are the user's own
// with private modes (no symlinks), the key's procStart matches too and the live process still has that start
// time. Never a choice by name, recency or cwd. Never throws.
ClaudeBind bind_claude_session(const std::filesystem::path& sessions_dir, long pid, const std::string& proc_start,
                               const std::string& session_id);

// The two NDJSON lines: {"type":"auth","token":...} and {"type":"user","session_id":...,"msg_id":...,
// "priority":"next","message":{"role":"user","content":text}}. Never "now": that aborts the turn in flight.
std::string claude_frames(const ClaudeBinding& b, const std::string& msg_id, const std::string& text);

// Async: re-checks the process and the socket, connects (uv_pipe), writes the frames, shuts down writing and
// reads until the session closes. Refused (nothing written): empty text, frame over kClaudeMaxFrameBytes,
// process gone or changed, socket not private, ENOENT/ECONNREFUSED/any connect failure. Ambiguous: anything
// not clean after the connect (write error, reset, no close within `timeout`). Accepted: written, write side
// shut, peer closed cleanly. `done` runs exactly once, on the loop thread, never from inside this call.
void push_claude(uv_loop_t* loop, const ClaudeBinding& b, std::string msg_id, std::string text, PushDone done,
                 std::chrono::milliseconds timeout = kClaudePushTimeout);

// --- pure parts, exposed for tests ---

// The versions whose inbox behaviour was checked (docs/native-routes.md): >= 2.1.332 and < 2.2.0.
bool claude_version_known(std::string_view version);
// The peer protocols the frames above are written for (1).
bool claude_peer_protocol_known(long protocol);
// What can change after binding, checked again right before each push: the process still has its start time
// (a recycled pid is never written to) and the socket is still private. "" when fine, else the reason.
std::string claude_push_precheck(const ClaudeBinding& b);

}  // namespace agentworks::bridge::native
