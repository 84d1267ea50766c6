// The outcome of an agent turn that exited by itself, from the CLI's own terminal event checked against the exit
// status and the session: an API error reported as "success", a missing result or another session's result is a
// failure, never a completion (signals, timeouts and stalls are decided before, by the runner).
#pragma once

#include <optional>
#include <string>

#include "agent/agent_stream.hpp"

namespace agentworks::functions {

struct AgentVerdict {
  bool ok = false;
  std::string error_code;  // agent_error, agent_protocol, exit_status
  std::string message;
  std::string answer;      // the final assistant text (kept on failures too)
};

// `expected_session`: the id chosen (Claude) or stored from thread.started (Codex); `seen_session`: the id the
// stream announced in this turn.
AgentVerdict agent_verdict(Runner runner, const std::optional<AgentTerminal>& terminal, const AgentStream& stream,
                           const std::string& expected_session, const std::string& seen_session, int exit_code);

}  // namespace agentworks::functions
