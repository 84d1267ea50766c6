// A Crew's function declarations, read from DIR/.agentworks/functions.json (docs/functions.md).
// Parsing checks everything a call will rely on (keys, names, schemas, the command inside the project), so a
// refused file never replaces the declaration in force. Schemas are kept as JSON text.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "declaration/agent_allowance.hpp"

namespace agentworks::functions {

inline constexpr int kDefaultTimeoutSeconds = 600;
inline constexpr int kMaxTimeoutSeconds = 86400;
inline constexpr std::size_t kMaxFunctions = 100;
inline constexpr std::size_t kMaxDeclarationBytes = 1024 * 1024;

// Who runs a call: a program of the project, or a fresh headless Claude Code / Codex session (agent runners).
enum class Runner { command, claude, codex };
const char* runner_name(Runner r);

inline constexpr int kDefaultAgentIdleSeconds = 300;
inline constexpr std::size_t kMaxPromptBytes = 64 * 1024;

// run.claude / run.codex: the task prompt (a template over the checked inputs, `{{name}}`) and the agent's
// limits. The prompt the agent sees adds the output contract (agent_prompt.hpp).
struct AgentRun {
  std::string prompt;
  std::vector<std::string> allowed_tools;  // claude: --allowedTools entries (e.g. "Read", "Bash(git diff:*)")
  std::string permission_mode = "default"; // claude: default, acceptEdits, plan, dontAsk
  std::optional<std::string> model;
  std::optional<int> max_turns;            // claude
  std::string sandbox = "read-only";       // codex: read-only, workspace-write, danger-full-access
};

struct FunctionDecl {
  std::string name;
  std::string description;
  std::string inputs_json;                        // JSON Schema draft-07, compact text
  std::optional<std::string> output_schema_json;  // absent or null: the answer is the result
  Runner runner = Runner::command;
  std::vector<std::string> command;               // run.command: argv, argv[0] a project path or a PATH name
  AgentRun agent;                                 // run.claude / run.codex
  int timeout_seconds = kDefaultTimeoutSeconds;
  // No output line (a command's stderr, an agent's event) for this long fails the call as `stalled`; 0: none.
  // Agents default to kDefaultAgentIdleSeconds; a pending question pauses it.
  int idle_timeout_seconds = 0;
  // "acc_…" (that account), "agent:NAME" (that agent of the owner's account: once any is named, the owner's
  // other chats may not call this function), "agent:NAME@acc_…" (that agent of another account); empty: the
  // owner's account only.
  std::vector<std::string> allowed_callers;
  // Agent runners (R-X7): "direct" (the final assistant text is the answer) or "explicit" (the agent speaks only
  // through its call server's send_message and no_reply; its text is commentary).
  bool explicit_communication = false;
};

// One allowed_callers entry read back: account_id empty for "agent:NAME" (the owner's account).
struct AllowedCaller {
  std::string account_id;
  std::optional<std::string> agent_name;
};
std::optional<AllowedCaller> parse_allowed_caller(const std::string& entry);

inline constexpr const char* kCrewAgentName = "agent";  // the Crew's agent as a FunctionDecl (allowance messages)

struct Declaration {
  std::vector<FunctionDecl> functions;
  // The Crew's own agent (R-K2), from crew.json: runner claude or codex, agent.prompt its instructions; bounded by
  // the Crew's allowance exactly like an agent function.
  std::optional<FunctionDecl> agent;
  bool messaging = true;  // R-K3: the file's default of the messaging switch
};

// The declaration file of a Crew folder, and its optional Crew file (the Crew's agent and messaging switch).
std::filesystem::path declaration_path(const std::filesystem::path& crew_dir);
std::filesystem::path crew_file_path(const std::filesystem::path& crew_dir);

// Reads and checks DIR/.agentworks/functions.json, and DIR/.agentworks/crew.json when there is one. Throws Error(invalid_declaration) with "PATH:LINE: reason".
// An agent function that asks for more than `allowance` (agent_allowance.hpp) is refused the same way; the hint
// names `crew_name`.
Declaration load_declaration(const std::filesystem::path& crew_dir, const AgentAllowance& allowance,
                             const std::string& crew_name);
// The same checks on text (tests; `crew_dir` resolves the commands).
Declaration parse_declaration(const std::string& text, const std::filesystem::path& crew_dir,
                              const std::string& shown_path, const AgentAllowance& allowance = {},
                              const std::string& crew_name = "NAME");

// A served Crew's declaration as its runner sent it (R-R1): the texts of functions.json and crew.json (nullopt: none)
// with the same checks, but no folder: the runner checked the commands in its folder, and checks again at each call.
Declaration parse_sent_declaration(const std::string& functions_text, const std::optional<std::string>& crew_text,
                                   const AgentAllowance& allowance, const std::string& crew_name);
// What a call pins of the declaration it was admitted under (R-R2): a hash of its stored form.
std::string declaration_hash(const std::string& declaration_json);

// The checks of crew.json's text into `d` (tests; load_declaration reads the file).
void parse_crew_file(const std::string& text, const std::string& shown_path, const AgentAllowance& allowance,
                     const std::string& crew_name, Declaration& d);

// The stored form (the crews row) and back; the stored form is always one that parse_declaration accepted.
std::string declaration_to_json(const Declaration& d);
Declaration declaration_from_json(const std::string& text);

const FunctionDecl* find_function(const Declaration& d, const std::string& name);

}  // namespace agentworks::functions
