// Reading the event stream of a headless agent CLI (`claude -p --output-format stream-json`, `codex exec --json`),
// one stdout line at a time, into what the call records: execution messages (assistant text, tool use by name
// and status, plan updates, usage; never raw tool arguments or results), the progress line, the session id, and
// the CLI's own terminal event. Deciding the outcome from it is agent_verdict.hpp's job.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "declaration/declaration.hpp"

namespace agentworks::functions {

struct AgentMessage {
  std::string kind;  // assistant, tool, plan, usage, warning, error
  std::string text;
};

// The CLI's terminal event: Claude's `result`, Codex's `turn.completed` / `turn.failed`.
struct AgentTerminal {
  bool ok = false;         // Claude: is_error false; Codex: turn.completed
  std::string session_id;  // Claude: the result's session_id (Codex: empty)
  std::string text;        // Claude: the result text
  std::string error;       // what the CLI said went wrong
};

struct AgentLine {
  std::vector<AgentMessage> messages;
  std::optional<std::string> progress;
  std::optional<std::string> session_id;  // Claude's init event, Codex's thread.started
  std::optional<std::string> version;     // Claude's init event
  std::optional<std::string> usage;       // a usage summary, for the `usage` event
  std::optional<AgentTerminal> terminal;
  bool malformed = false;                 // not a JSON object: kept as a warning message
};

class AgentStream {
 public:
  virtual ~AgentStream() = default;
  virtual AgentLine read(const std::string& line) = 0;
  // The text of the last complete assistant message so far (the final answer when the run ends).
  const std::string& last_assistant() const { return last_assistant_; }
  // The last error the stream reported, even without a terminal event ("" if none).
  const std::string& last_error() const { return last_error_; }

 protected:
  std::string last_assistant_;
  std::string last_error_;
};

std::unique_ptr<AgentStream> make_agent_stream(Runner runner);

}  // namespace agentworks::functions
