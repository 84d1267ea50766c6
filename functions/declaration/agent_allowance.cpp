#include "declaration/agent_allowance.hpp"

#include <array>
#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "declaration/declaration.hpp"

namespace agentworks::functions {

using nlohmann::json;

namespace {

constexpr std::array<const char*, 3> kSandboxes = {"read-only", "workspace-write", "danger-full-access"};

std::string joined(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

// The hint a person can paste: the current tools plus `extra`, quoted for the shell.
std::string widen_tools(const AgentAllowance& a, const std::string& crew_name, const std::string& extra) {
  std::vector<std::string> tools = a.claude_tools;
  if (extra == "*") tools = {"*"};
  else tools.push_back(extra);
  return "`agentworks crews allow " + crew_name + " --claude-tools '" + joined(tools, ",") + "'`";
}

}  // namespace

bool tool_allowed(const AgentAllowance& allowance, const std::string& tool) {
  for (const auto& allowed : allowance.claude_tools) {
    if (allowed == "*" || allowed == tool) return true;
    // A bare name covers its patterns: "Bash" covers "Bash(git diff:*)".
    if (allowed.find('(') == std::string::npos && tool.size() > allowed.size() &&
        tool.compare(0, allowed.size(), allowed) == 0 && tool[allowed.size()] == '(')
      return true;
  }
  return false;
}

std::optional<int> sandbox_rank(const std::string& sandbox) {
  for (std::size_t i = 0; i < kSandboxes.size(); ++i)
    if (sandbox == kSandboxes[i]) return static_cast<int>(i);
  return std::nullopt;
}

std::optional<AllowanceBreach> allowance_breach(const AgentAllowance& a, const FunctionDecl& f,
                                                const std::string& crew_name) {
  const std::string allowed = a.claude_tools.empty() ? "none" : joined(a.claude_tools, ", ");
  if (f.runner == Runner::claude) {
    for (const auto& tool : f.agent.allowed_tools) {
      if (!tool_allowed(a, tool))
        return AllowanceBreach{tool,
                               "run.claude.allowed_tools names '" + tool + "', which this Crew does not allow (allowed: " +
                                   allowed + ")",
                               widen_tools(a, crew_name, tool)};
    }
    if (f.agent.permission_mode == "bypassPermissions" && !tool_allowed(a, "*"))
      return AllowanceBreach{"permission_mode",
                             "run.claude.permission_mode 'bypassPermissions' needs every tool allowed ('*'), which this "
                             "Crew does not allow (allowed: " + allowed + ")",
                             widen_tools(a, crew_name, "*")};
  } else if (f.runner == Runner::codex) {
    const auto asked = sandbox_rank(f.agent.sandbox);
    const auto granted = sandbox_rank(a.codex_sandbox);
    if (!asked || !granted || *asked > *granted)
      return AllowanceBreach{"sandbox",
                             "run.codex.sandbox '" + f.agent.sandbox + "' is wider than this Crew allows (" +
                                 a.codex_sandbox + ")",
                             "`agentworks crews allow " + crew_name + " --codex-sandbox " + f.agent.sandbox + "`"};
  }
  return std::nullopt;
}

std::optional<std::pair<std::string, AllowanceBreach>> declaration_breach(const AgentAllowance& a,
                                                                          const Declaration& d,
                                                                          const std::string& crew_name) {
  for (const auto& f : d.functions)
    if (auto breach = allowance_breach(a, f, crew_name)) return std::make_pair(f.name, *breach);
  if (d.agent)
    if (auto breach = allowance_breach(a, *d.agent, crew_name)) return std::make_pair(d.agent->name, *breach);
  return std::nullopt;
}

AgentAllowance widest_allowance() {
  AgentAllowance a;
  a.claude_tools = {"*"};
  a.codex_sandbox = "danger-full-access";
  return a;
}

void check_allowance(const AgentAllowance& a) {
  if (a.claude_tools.size() > kMaxAllowedTools)
    throw Error(ErrorCode::bad_request, "claude_tools has more than " + std::to_string(kMaxAllowedTools) + " entries");
  for (const auto& tool : a.claude_tools) {
    if (tool.empty() || tool.find(',') != std::string::npos || tool.size() > kMaxToolNameBytes)
      throw Error(ErrorCode::bad_request,
                  "claude_tools holds tool names such as \"Read\", \"Bash\" or \"Bash(git diff:*)\", or \"*\" for "
                  "every tool (non-empty, at most 200 bytes, no commas); got '" + tool + "'");
  }
  if (!sandbox_rank(a.codex_sandbox))
    throw Error(ErrorCode::bad_request, "codex_sandbox must be one of read-only, workspace-write, "
                                        "danger-full-access (got '" + a.codex_sandbox + "')");
}

std::string allowance_to_json(const AgentAllowance& a) {
  return json{{"claude_tools", a.claude_tools}, {"codex_sandbox", a.codex_sandbox}}.dump();
}

AgentAllowance allowance_from_json(const std::string& text) {
  AgentAllowance a;
  if (text.empty()) return a;
  const json doc = json::parse(text);
  a.claude_tools = doc.at("claude_tools").get<std::vector<std::string>>();
  a.codex_sandbox = doc.at("codex_sandbox").get<std::string>();
  return a;
}

}  // namespace agentworks::functions
