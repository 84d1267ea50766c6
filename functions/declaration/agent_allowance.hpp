// What the person allows the agent functions of one Crew to use: the Claude Code tools (--allowedTools entries) and
// the widest Codex sandbox. A declaration that asks for more is refused where it is parsed (declaration.hpp), so an
// agent never runs with more than its Crew's owner granted. Stored on the crews row as JSON text.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace agentworks::functions {

struct FunctionDecl;
struct Declaration;

inline constexpr std::size_t kMaxAllowedTools = 100;
inline constexpr std::size_t kMaxToolNameBytes = 200;

struct AgentAllowance {
  // "*" allows every tool; a bare name ("Bash") allows it and all its patterns ("Bash(git diff:*)"); any other
  // entry allows exactly itself.
  std::vector<std::string> claude_tools = {"Read", "Grep", "Glob", "Write", "Edit"};
  std::string codex_sandbox = "workspace-write";  // read-only < workspace-write < danger-full-access
};

// True when `tool` (a declared run.claude.allowed_tools entry) is one the allowance covers.
bool tool_allowed(const AgentAllowance& allowance, const std::string& tool);
// The order of the Codex sandboxes (0 read-only, 1 workspace-write, 2 danger-full-access); nullopt: unknown.
std::optional<int> sandbox_rank(const std::string& sandbox);

// What a function asks beyond the allowance: the run key it names (for the line) and the reason.
struct AllowanceBreach {
  std::string key;   // the JSON key or string to point at: the tool entry, "permission_mode", "sandbox"
  std::string what;  // "run.claude.allowed_tools names 'Bash', which this Crew does not allow (allowed: ...)"
  std::string fix;   // "`agentworks crews allow NAME --claude-tools '...'`": the allowance that would admit it
};
// `crew_name` is shown in the `agentworks crews allow` hint. nullopt: everything the function asks is allowed.
std::optional<AllowanceBreach> allowance_breach(const AgentAllowance& allowance, const FunctionDecl& f,
                                                const std::string& crew_name);
// The first function of `d` that asks for more, and what (for refusing a narrower allowance).
std::optional<std::pair<std::string, AllowanceBreach>> declaration_breach(const AgentAllowance& allowance,
                                                                          const Declaration& d,
                                                                          const std::string& crew_name);

// Checks given values (Error bad_request naming the field): tools non-empty, without commas, at most
// kMaxAllowedTools of at most kMaxToolNameBytes; a known sandbox.
void check_allowance(const AgentAllowance& allowance);

// Every tool and the widest sandbox: for a parse whose allowance was already judged elsewhere (a served Crew's
// files, which the server checks against the Crew's own allowance, R-R2).
AgentAllowance widest_allowance();

// The stored form and back; "" (rows from before allowances) reads as the default.
std::string allowance_to_json(const AgentAllowance& allowance);
AgentAllowance allowance_from_json(const std::string& text);

}  // namespace agentworks::functions
