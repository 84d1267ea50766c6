#include "agent/agent_verdict.hpp"

namespace agentworks::functions {

AgentVerdict agent_verdict(Runner runner, const std::optional<AgentTerminal>& terminal, const AgentStream& stream,
                           const std::string& expected_session, const std::string& seen_session, int exit_code) {
  const bool claude = runner == Runner::claude;
  const std::string cli = claude ? "Claude Code" : "Codex";
  const std::string exit_text = "exit status " + std::to_string(exit_code);
  AgentVerdict v;
  v.answer = claude && terminal && !terminal->text.empty() ? terminal->text : stream.last_assistant();
  if (!terminal) {
    if (!stream.last_error().empty()) {
      v.error_code = "agent_error";
      v.message = cli + " reported an error and ended without finishing its turn (" + exit_text + "): " +
                  stream.last_error();
    } else {
      v.error_code = "agent_protocol";
      v.message = cli + " ended without its terminal event (" + std::string(claude ? "result" : "turn.completed") +
                  ", " + exit_text + ")";
    }
    return v;
  }
  if (!terminal->ok) {
    v.error_code = "agent_error";
    v.message = cli + " reported an error (" + exit_text + "): " + terminal->error;
    return v;
  }
  const std::string& session = claude ? terminal->session_id : seen_session;
  if (session.empty() || session != expected_session) {
    v.error_code = "agent_protocol";
    v.message = cli + "'s result belongs to session '" + session + "', not to this call's session '" +
                expected_session + "'";
    return v;
  }
  if (exit_code != 0) {
    v.error_code = "exit_status";
    v.message = cli + " reported success but exited with " + exit_text;
    return v;
  }
  v.ok = true;
  return v;
}

}  // namespace agentworks::functions
