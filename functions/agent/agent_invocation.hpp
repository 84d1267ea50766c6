// The command line and environment of one agent turn: `claude -p` with the stream-json output, a session id
// chosen before the start (or --resume for the correction turn), the `agentworks` MCP server for questions and
// the declared tools; `codex exec --json` (or `exec resume`) with the declared sandbox, the same MCP server and
// the call's variables let through Codex's shell-environment filter. The prompt goes on stdin.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "declaration/declaration.hpp"

namespace agentworks::functions {

struct AgentTurn {
  Runner runner = Runner::claude;
  const AgentRun* run = nullptr;
  std::string cli;              // the claude / codex executable
  std::string agentworks_cli;   // `agentworks`, for `mcp serve --call`
  std::string session;          // Claude: the chosen session id; Codex: the thread id to resume ("" on the first turn)
  bool resume = false;          // the correction turn
  int tool_timeout_seconds = 600;
  bool explicit_communication = false;  // R-X7: the call server also serves send_message and no_reply
  // R-K2: a Crew agent's conversation turn: its MCP server is the conversation's (send_message and no_reply only).
  bool conversation = false;
};

std::vector<std::string> agent_argv(const AgentTurn& t);
// `base` (the call's environment) plus what the CLI needs from the host's own environment: its credentials and
// settings (ANTHROPIC_*, CLAUDE_*, CODEX_*, OPENAI_*, proxies), without the markers of an enclosing agent session.
std::vector<std::string> agent_environment(const AgentTurn& t, std::vector<std::string> base);

// The `agentworks` program an agent execution runs as its MCP server: AGENTWORKS_CLI_BIN, else beside the host's
// program (installed), else the build tree's cli/ folder, else on PATH; "" when there is none.
std::string find_agentworks_cli(const std::string& host_dir);
// A version 4 UUID (Claude's --session-id).
std::string new_session_uuid();

}  // namespace agentworks::functions
