// Codex's own queue as a native route (R-N2..R-N4): `codex queue --thread UUID --message TEXT` admits
// a message into a session's native queue; an idle session runs it at once, a busy one after its turn. The facts
// this file relies on (outputs, exit codes, which binary runs the hooks) are in docs/native-routes.md, "Codex
// queue". Everything runs with uv_spawn (argv, never a shell), a bounded output capture and a timeout.
#pragma once

#include <uv.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "native/push_result.hpp"

namespace agentworks::bridge::native {

struct CodexBinding {
  std::string thread_id;   // the hook's session_id (a UUID; never a session name)
  std::string codex_bin;   // absolute path of the Codex executable that runs the hooks
  std::string codex_home;  // the session's CODEX_HOME ("" = unset: Codex's default)
  std::string remote;      // "" or unix:///ABSOLUTE/PATH of a separate app-server the person named
};

// Bounds of one run; tests shorten them.
struct CodexRunLimits {
  std::chrono::milliseconds probe_timeout{10000};  // each of `--version` and `queue --help`
  std::chrono::milliseconds push_timeout{20000};   // `queue`; then SIGKILL and the outcome is ambiguous
  std::size_t output_limit = 16 * 1024;            // bytes kept of stdout and of stderr each
};

// Async: `codex_bin --version`, then `codex_bin queue --help`. ok only when the version is one the bridge knows
// and the queue command exists; otherwise reason says why (e.g. "Codex 0.150.0 has no queue command").
// `done` runs exactly once, on the loop thread, never from inside this call.
void probe_codex(uv_loop_t* loop, const CodexBinding& b,
                 std::function<void(bool ok, std::string version, std::string reason)> done,
                 const CodexRunLimits& limits = {});

// Async: `codex_bin queue --thread=ID --message=TEXT [--remote=R]` (the `=` forms: a text starting with "-"
// would otherwise be read as an option), env CODEX_HOME, stdin /dev/null. exit 0 -> accepted; a definite
// refusal before queueing -> refused; anything else (timeout, signal, unknown failure) -> ambiguous.
// NEVER reruns. `done` runs exactly once, on the loop thread, never from inside this call.
void push_codex(uv_loop_t* loop, const CodexBinding& b, std::string text, PushDone done,
                const CodexRunLimits& limits = {});

// unix:// + an absolute path, no "." or ".." component, no control characters, fits a sockaddr_un.
bool valid_remote(const std::string& remote);

// --- pure parts, exposed for tests ---

// "codex-cli 0.171.0\n" -> "0.171.0"; nullopt when the answer is not a plain X.Y.Z version line.
std::optional<std::string> parse_codex_version(const std::string& version_output);
// The versions whose queue behaviour was checked (docs/native-routes.md).
bool codex_version_known(const std::string& version);
// `queue --help` output of a Codex that has the command (an unknown subcommand prints the top-level help).
bool has_queue_command(const std::string& help_output);
bool valid_thread_id(const std::string& thread_id);
std::vector<std::string> queue_argv(const CodexBinding& b, const std::string& text);

// How one finished `codex queue` run ended.
struct QueueRunEnd {
  bool started = true;     // false: uv_spawn failed (spawn_error set)
  int spawn_error = 0;     // libuv error code
  bool timed_out = false;  // killed after the timeout
  int term_signal = 0;
  long long exit_status = 0;
  std::string out;
  std::string err;
};
PushResult classify_queue_run(const QueueRunEnd& end);

}  // namespace agentworks::bridge::native
