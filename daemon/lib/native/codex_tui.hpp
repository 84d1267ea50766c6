// Which process shows a Codex chat to the person (R-H11). With Codex's default daemon the hooks run in the
// daemon (`codex app-server … --managed-daemon`), which keeps a thread loaded for about a minute after its TUI
// quit and runs queued items headless meanwhile; SessionEnd only comes when it unloads the thread. So the bridge
// watches the TUI itself: the provider process when it is the TUI (`--no-daemon`), else the one Codex TUI that
// uses the daemon's CODEX_HOME. Codex's app-server protocol reports no subscribers per thread, so with two or
// more such TUIs the bridge cannot tell which one shows the chat and says so (the route stays off, R-N3).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "agentworks/process_ancestry.hpp"

namespace agentworks::bridge::native {

struct CodexProcess {
  long pid = 0;
  std::string start;                      // field 22 of /proc/PID/stat
  std::string exe;                        // /proc/PID/exe
  std::vector<std::string> args;          // argv[1..]
  std::optional<std::string> codex_home;  // CODEX_HOME in its environment (nullopt: unset)
};

// True when `p` serves threads for others: an app-server (the managed daemon or one started by hand).
bool runs_app_server(const CodexProcess& p);
// True when `p` is an interactive Codex TUI (`codex`, `codex resume …`, `codex "prompt"`) that uses an app-server:
// the executable is named codex, no other subcommand (exec, queue, app-server, mcp, …), not `--no-daemon`.
bool is_daemon_tui(const CodexProcess& p);

struct TuiChoice {
  std::optional<process::ProcessKey> tui;
  std::string reason;  // why there is none (for status)
};
// The TUI of the session whose hooks run in `provider`, among `running` (the other Codex processes of this user).
TuiChoice choose_codex_tui(const CodexProcess& provider, const std::vector<CodexProcess>& running);

// From /proc: `pid` itself, and every other process of this user whose executable is named codex.
std::optional<CodexProcess> read_codex_process(long pid);
std::vector<CodexProcess> running_codex_processes();
TuiChoice find_codex_tui(long provider_pid);

}  // namespace agentworks::bridge::native
