#include "agent/agent_invocation.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "agentworks/environment.hpp"
#include "agentworks/plugin_tools.hpp"
#include "agentworks/random.hpp"
#include "declaration/agent_cli.hpp"

extern char** environ;

namespace agentworks::functions {

using nlohmann::json;

namespace {

// R-X7: an explicit function's voice.
constexpr const char* kExplicitTools[] = {"send_message", "no_reply"};
// A Crew agent's turn may wake its own conversation later (R-K2 with R-W1); it calls functions like an execution.
constexpr const char* kConversationTools[] = {"schedule_message_wakeup", "cancel_message_wakeup",
                                              "list_message_wakeups"};

std::vector<std::string> call_server_args(const AgentTurn& t) {
  if (t.conversation) return {"mcp", "serve", "--conversation"};
  if (t.explicit_communication) return {"mcp", "serve", "--call", "--explicit"};
  return {"mcp", "serve", "--call"};
}
// The call server's function tools (kFunctionTools, R-D4) are allowed: what the execution may call is the server's
// rule, not the CLI's.

// A TOML basic string (Codex parses `-c key=value` values as TOML); JSON's escapes are valid TOML ones.
std::string toml_string(const std::string& s) { return json(s).dump(); }

std::string toml_array(const std::vector<std::string>& items) {
  std::string out = "[";
  for (const auto& i : items) out += (out.size() > 1 ? "," : "") + toml_string(i);
  return out + "]";
}

const std::vector<std::string>& call_variables(const AgentTurn& t) {
  static const std::vector<std::string> call = {"AGENTWORKS_CALL_ID", "AGENTWORKS_CALL_TOKEN", "AGENTWORKS_SERVER",
                                                "AGENTWORKS_SERVER_CA_FILE"};
  static const std::vector<std::string> conversation = {"AGENTWORKS_CONVERSATION_ID", "AGENTWORKS_TURN_TOKEN",
                                                        "AGENTWORKS_SERVER", "AGENTWORKS_SERVER_CA_FILE"};
  return t.conversation ? conversation : call;
}

// The MCP tools the turn may use without asking: a conversation speaks only (R-K2); a call asks its caller and
// calls functions (R-D4), and an explicit one speaks too (R-X7).
std::vector<std::string> server_tools(const AgentTurn& t) {
  std::vector<std::string> tools;
  if (!t.conversation) tools.push_back("request_input");
  for (const char* tool : kFunctionTools) tools.push_back(tool);  // R-D4: an execution's, and a Crew agent's turn
  if (t.explicit_communication || t.conversation)
    for (const char* tool : kExplicitTools) tools.push_back(tool);
  if (t.conversation)
    for (const char* tool : kConversationTools) tools.push_back(tool);
  return tools;
}

std::vector<std::string> claude_argv(const AgentTurn& t) {
  const AgentRun& run = *t.run;
  std::vector<std::string> a = {t.cli, "-p", "--verbose", "--output-format", "stream-json"};
  a.insert(a.end(), {t.resume ? "--resume" : "--session-id", t.session});
  // Only the call's own question server: the person's other MCP servers are not part of a function's contract.
  const json mcp = {{"mcpServers",
                     {{"agentworks", {{"type", "stdio"}, {"command", t.agentworks_cli}, {"args", call_server_args(t)}}}}}};
  a.insert(a.end(), {"--mcp-config", mcp.dump(), "--strict-mcp-config"});
  std::string tools;
  for (const auto& tool : server_tools(t)) tools += (tools.empty() ? "mcp__agentworks__" : ",mcp__agentworks__") + tool;
  for (const auto& tool : run.allowed_tools) tools += "," + tool;
  a.insert(a.end(), {"--allowedTools", tools});
  // A question tool nobody can answer would hang the run or waste it: questions go through request_input.
  a.insert(a.end(), {"--disallowedTools", "AskUserQuestion"});
  a.insert(a.end(), {"--permission-mode", run.permission_mode});
  if (run.model) a.insert(a.end(), {"--model", *run.model});
  if (run.max_turns) a.insert(a.end(), {"--max-turns", std::to_string(*run.max_turns)});
  return a;
}

std::vector<std::string> codex_argv(const AgentTurn& t) {
  const AgentRun& run = *t.run;
  std::vector<std::string> a = {t.cli, "exec"};
  if (t.resume) a.push_back("resume");
  a.insert(a.end(), {"--json", "--skip-git-repo-check"});
  auto config = [&a](const std::string& key, const std::string& value) { a.insert(a.end(), {"-c", key + "=" + value}); };
  config("sandbox_mode", toml_string(run.sandbox));
  config("approval_policy", toml_string("never"));
  // Codex drops variables named like *TOKEN* from its shell tool by default; the call's own variables must reach
  // it (an agent can do what a command can), while the CLI's credentials stay out of it.
  config("shell_environment_policy.ignore_default_excludes", "true");
  config("shell_environment_policy.exclude",
         toml_array({"*KEY*", "*SECRET*", "*PASSWORD*", "ANTHROPIC_*", "OPENAI_*", "AWS_*", "AZURE_*", "GOOGLE_*"}));
  config("mcp_servers.agentworks.command", toml_string(t.agentworks_cli));
  config("mcp_servers.agentworks.args", toml_array(call_server_args(t)));
  config("mcp_servers.agentworks.env_vars", toml_array(call_variables(t)));
  config("mcp_servers.agentworks.tool_timeout_sec", std::to_string(t.tool_timeout_seconds));
  // With approval_policy "never" Codex refuses MCP tools that need an approval: the question tool needs none.
  for (const auto& tool : server_tools(t))
    config("mcp_servers.agentworks.tools." + tool + ".approval_mode", toml_string("approve"));
  if (run.model) a.insert(a.end(), {"--model", *run.model});
  if (t.resume) a.push_back(t.session);
  a.push_back("-");  // the prompt on stdin
  return a;
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

bool passes_through(const std::string& name) {
  static const char* const markers[] = {"CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT", "CLAUDE_CODE_SSE_PORT", "CODEX_THREAD_ID",
                                        "CODEX_SANDBOX", "CODEX_SANDBOX_NETWORK_DISABLED", "CODEX_CI"};
  for (const char* m : markers)
    if (name == m) return false;  // an enclosing agent session's markers would confuse a fresh one
  for (const char* p : {"ANTHROPIC_", "CLAUDE_", "CODEX_", "OPENAI_"})
    if (starts_with(name, p)) return true;
  for (const char* n : {"DISABLE_AUTOUPDATER", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy",
                        "no_proxy", "SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS", "XDG_CONFIG_HOME",
                        "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"})
    if (name == n) return true;
  return false;
}

}  // namespace

std::vector<std::string> agent_argv(const AgentTurn& t) {
  return t.runner == Runner::claude ? claude_argv(t) : codex_argv(t);
}

std::vector<std::string> agent_environment(const AgentTurn& t, std::vector<std::string> base) {
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string entry = *e;
    const auto eq = entry.find('=');
    if (eq == std::string::npos || !passes_through(entry.substr(0, eq))) continue;
    base.push_back(entry);
  }
  if (t.runner == Runner::claude) {
    // Claude waits this long for an MCP tool: request_input may wait as long as the call may run.
    base.push_back("MCP_TOOL_TIMEOUT=" + std::to_string(static_cast<long long>(t.tool_timeout_seconds) * 1000));
  }
  return base;
}

std::string find_agentworks_cli(const std::string& host_dir) {
  if (const char* given = env::get(env::Var::cli_bin); given != nullptr)
    return ::access(given, X_OK) == 0 ? std::filesystem::absolute(given).string() : "";
  for (const std::string& candidate : {host_dir + "/agentworks", host_dir + "/../cli/agentworks"}) {
    if (::access(candidate.c_str(), X_OK) == 0)
      return std::filesystem::weakly_canonical(candidate).string();
  }
  return find_on_path("agentworks").value_or("");
}

std::string new_session_uuid() {
  std::string h = random_hex(16);
  h[12] = '4';
  static const char variant[] = "89ab";
  h[16] = variant[static_cast<unsigned char>(h[16]) % 4];
  return h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" + h.substr(16, 4) + "-" + h.substr(20);
}

}  // namespace agentworks::functions
