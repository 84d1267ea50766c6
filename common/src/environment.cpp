#include "agentworks/environment.hpp"

#include <array>
#include <cstdlib>

namespace agentworks::env {
namespace {

// In enum order: the enum value is the index (checked by a unit test).
constexpr std::array kVars = {
    VarInfo{Var::config, "AGENTWORKS_CONFIG", "$XDG_CONFIG_HOME/agentworks/config.json",
            "the CLI's login file (server URL, token); another file is another login", false},
    VarInfo{Var::bridge_bin, "AGENTWORKS_BRIDGE_BIN", "next to agentworks, then the build tree, then PATH",
            "the agentworks-bridge program `agentworks up` and `daemon start` run", false},
    VarInfo{Var::server_bin, "AGENTWORKS_SERVER_BIN", "next to agentworks, then the build tree, then PATH",
            "the agentworks-server program `agentworks up` runs", false},
    VarInfo{Var::hook_bin, "AGENTWORKS_HOOK_BIN", "next to agentworks, then the build tree",
            "the agentworks-hook program `agentworks attach` writes into the hook configuration", false},
    VarInfo{Var::claude_bin, "AGENTWORKS_CLAUDE_BIN", "claude on PATH",
            "the Claude Code program `agentworks claude`, `attach claude` and functions with run.claude run", false},
    VarInfo{Var::claude_channel, "AGENTWORKS_CLAUDE_CHANNEL", "unset",
            "set to 1 by `agentworks claude`: the plugin's MCP server then pushes messages as a Claude channel", false},
    VarInfo{Var::notify_command, "AGENTWORKS_NOTIFY_COMMAND", "notify-send (osascript on macOS) on PATH",
            "the program (an absolute path) the bridge runs for a desktop notification, as PROGRAM TITLE TEXT", false},
    VarInfo{Var::notify_after_ms, "AGENTWORKS_NOTIFY_AFTER_MS", "120000",
            "how long a message waits unread in an idle chat before the desktop notification", false},
    VarInfo{Var::max_continuations, "AGENTWORKS_MAX_CONTINUATIONS", "3",
            "how many times in a row the Stop hook keeps a chat going to deliver messages", false},
    VarInfo{Var::bridge_watchdog_ms, "AGENTWORKS_BRIDGE_WATCHDOG_MS", "45000",
            "the silence after which the bridge drops and reopens a server stream (at least 100)", true},
    VarInfo{Var::bridge_max_messages_per_session, "AGENTWORKS_BRIDGE_MAX_MESSAGES_PER_SESSION", "2000",
            "the bridge's per-session message quota", true},
    VarInfo{Var::failpoint, "AGENTWORKS_FAILPOINT", "unset",
            "the named failpoint at which a failpoints build kills itself with SIGKILL", true},
    VarInfo{Var::execution_server, "AGENTWORKS_SERVER",
            "unset (set by the server in a function execution and a Crew agent's turn)",
            "the server URL `agentworks functions ask` and `mcp serve --call|--conversation` talk to", false},
    VarInfo{Var::execution_server_ca_file, "AGENTWORKS_SERVER_CA_FILE",
            "unset (set by a TLS server in a function execution and a Crew agent's turn: its own certificate)",
            "the certificate trusted for AGENTWORKS_SERVER when it is https", false},
    VarInfo{Var::execution_call_id, "AGENTWORKS_CALL_ID", "unset (set by the server in a function execution)",
            "the call `agentworks functions ask` asks about", false},
    VarInfo{Var::execution_call_token, "AGENTWORKS_CALL_TOKEN", "unset (set by the server in a function execution)",
            "the per-call secret `agentworks functions ask` authenticates with (valid only for its own open call)",
            false},
    VarInfo{Var::codex_bin, "AGENTWORKS_CODEX_BIN", "codex on PATH",
            "the Codex program the server runs for a function with run.codex", false},
    VarInfo{Var::cli_bin, "AGENTWORKS_CLI_BIN", "next to agentworks-server, then the build tree, then PATH",
            "the agentworks program an agent execution runs as its `agentworks` MCP server (request_input)", false},
    VarInfo{Var::conversation_id, "AGENTWORKS_CONVERSATION_ID", "unset (set by the server in a Crew agent's turn)",
            "the conversation `agentworks mcp serve --conversation` speaks in", false},
    VarInfo{Var::turn_token, "AGENTWORKS_TURN_TOKEN", "unset (set by the server in a Crew agent's turn)",
            "the per-turn secret `mcp serve --conversation` sends (valid only while its turn runs)", false},
    VarInfo{Var::keeper_bin, "AGENTWORKS_KEEPER_BIN", "next to agentworks, then the build tree's server/ folder",
            "the execution keeper a served Crew's runner (`agentworks crews serve`) starts each execution under",
            false},
};

}  // namespace

std::span<const VarInfo> table() { return kVars; }

const VarInfo& info(Var var) { return kVars.at(static_cast<std::size_t>(var)); }

const char* get(Var var) {
  const char* value = std::getenv(info(var).name.data());
  return value != nullptr && value[0] != '\0' ? value : nullptr;
}

}  // namespace agentworks::env
