// The pure parts of the agent runners (R-F2, R-F3, R-F5): the prompt template, the declaration of run.claude /
// run.codex, the reading of each CLI's event stream, the verdict from its terminal event, and the command lines.
// The real CLIs are exercised end to end in tests/e2e/functions_*_e2e_test.cpp.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "agentworks/error.hpp"
#include "agent/agent_invocation.hpp"
#include "agent/agent_prompt.hpp"
#include "agent/agent_stream.hpp"
#include "agent/agent_verdict.hpp"
#include "declaration/declaration.hpp"
#include "declaration/prompt_template.hpp"

namespace fs = std::filesystem;
using namespace agentworks::functions;

namespace {

const char* kInputs = R"({"type":"object","properties":{"pr_number":{"type":"integer"},"repo":{"type":"string"}}})";

bool contains(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

// The value after `flag` in argv, or "".
std::string after(const std::vector<std::string>& v, const std::string& flag) {
  const auto it = std::find(v.begin(), v.end(), flag);
  return it == v.end() || it + 1 == v.end() ? "" : *(it + 1);
}

std::string decl_with_run(const std::string& run, const std::string& extra = "") {
  return std::string(R"({"functions":[{"name":"review","inputs":)") + kInputs + R"(,"run":)" + run + extra + "}]}";
}

std::string refusal(const std::string& text) {
  try {
    parse_declaration(text, fs::temp_directory_path(), "functions.json");
  } catch (const agentworks::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(PromptTemplate, RendersInputsByNameIgnoringCase) {
  EXPECT_EQ(render_prompt("Review PR {{PR_NUMBER}} of {{ repo }}.", kInputs, R"({"pr_number":42,"repo":"a/b"})"),
            "Review PR 42 of a/b.");
  EXPECT_EQ(render_prompt("[{{repo}}]", kInputs, "{}"), "[]");  // a missing optional input renders as nothing
  EXPECT_EQ(prompt_placeholders("{{a}} x {{ b }} {{a}}"), (std::vector<std::string>{"a", "b", "a"}));
  EXPECT_EQ(placeholder_property(kInputs, "REPO").value_or(""), "repo");
  EXPECT_FALSE(placeholder_property(kInputs, "branch"));
}

TEST(AgentDeclaration, ClaudeAndCodexRunsAreReadAndStoredWhole_RF2) {
  const auto d = parse_declaration(
      decl_with_run(R"J({"claude":{"prompt":"Review {{pr_number}}","allowed_tools":["Read","Bash(git diff:*)"],)J"
                    R"J("permission_mode":"plan","model":"sonnet","max_turns":7}})J"),
      fs::temp_directory_path(), "functions.json", AgentAllowance{{"Read", "Bash"}, "workspace-write"}, "api");
  ASSERT_EQ(d.functions.size(), 1u);
  const FunctionDecl& f = d.functions[0];
  EXPECT_EQ(f.runner, Runner::claude);
  EXPECT_EQ(f.agent.allowed_tools, (std::vector<std::string>{"Read", "Bash(git diff:*)"}));
  EXPECT_EQ(f.agent.permission_mode, "plan");
  EXPECT_EQ(f.agent.model.value_or(""), "sonnet");
  EXPECT_EQ(f.agent.max_turns.value_or(0), 7);
  EXPECT_EQ(f.idle_timeout_seconds, kDefaultAgentIdleSeconds);
  const auto back = declaration_from_json(declaration_to_json(d)).functions.at(0);
  EXPECT_EQ(back.runner, Runner::claude);
  EXPECT_EQ(back.agent.prompt, "Review {{pr_number}}");
  EXPECT_EQ(back.agent.allowed_tools, f.agent.allowed_tools);
  EXPECT_EQ(back.agent.max_turns, f.agent.max_turns);

  const auto c = parse_declaration(decl_with_run(R"({"codex":{"prompt":"Do it","sandbox":"workspace-write"}})",
                                                 R"(,"idle_timeout_seconds":30)"),
                                   fs::temp_directory_path(), "functions.json");
  EXPECT_EQ(c.functions.at(0).runner, Runner::codex);
  EXPECT_EQ(c.functions.at(0).agent.sandbox, "workspace-write");
  EXPECT_EQ(c.functions.at(0).idle_timeout_seconds, 30);
  EXPECT_EQ(declaration_from_json(declaration_to_json(c)).functions.at(0).agent.sandbox, "workspace-write");
}

TEST(AgentDeclaration, RefusalsNameTheProblem_RF1) {
  EXPECT_NE(refusal(decl_with_run(R"({"claude":{"prompt":"x","sandbox":"read-only"}})")).find("unknown key 'sandbox'"),
            std::string::npos);
  EXPECT_NE(refusal(decl_with_run(R"({"claude":{"prompt":"Fix {{branch}}"}})")).find("{{branch}}"), std::string::npos);
  EXPECT_NE(refusal(decl_with_run(R"({"claude":{"prompt":"x"},"codex":{"prompt":"y"}})")).find("exactly one"),
            std::string::npos);
  EXPECT_NE(refusal(decl_with_run(R"({"codex":{"prompt":"x","sandbox":"everything"}})")).find("sandbox"),
            std::string::npos);
  EXPECT_NE(refusal(decl_with_run(R"({"claude":{}})")).find("\"prompt\""), std::string::npos);
  EXPECT_NE(refusal(decl_with_run(R"({"claude":{"prompt":"x","allowed_tools":["Read,Bash"]}})")).find("no commas"),
            std::string::npos);
  EXPECT_NE(refusal(decl_with_run(R"({"claude":{"prompt":"x","max_turns":0}})")).find("max_turns"), std::string::npos);
}

TEST(AgentStream, ClaudeEventsBecomeMessagesWithoutToolArguments_RF3) {
  auto s = make_agent_stream(Runner::claude);
  auto init = s->read(R"({"type":"system","subtype":"init","session_id":"S1","claude_code_version":"2.1.332","model":"m"})");
  EXPECT_EQ(init.session_id.value_or(""), "S1");
  EXPECT_EQ(init.version.value_or(""), "2.1.332");
  auto use = s->read(R"({"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"rm -rf secret"}}]}})");
  ASSERT_EQ(use.messages.size(), 1u);
  EXPECT_EQ(use.messages[0].kind, "tool");
  EXPECT_EQ(use.messages[0].text, "Bash: started");
  EXPECT_EQ(use.progress.value_or(""), "running a shell command") << "said for a person, not as the tool's name";
  auto ask = s->read(R"({"type":"assistant","message":{"content":[{"type":"tool_use","id":"t0","name":"mcp__agentworks__request_input","input":{}}]}})");
  EXPECT_EQ(ask.progress.value_or(""), "asking its caller a question");
  auto other = s->read(R"({"type":"assistant","message":{"content":[{"type":"tool_use","id":"t9","name":"mcp__github__create_issue","input":{}}]}})");
  EXPECT_EQ(other.progress.value_or(""), "using create_issue (from github)");
  auto res = s->read(R"({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"the secret output","is_error":true}]}})");
  ASSERT_EQ(res.messages.size(), 1u);
  EXPECT_EQ(res.messages[0].text, "Bash: failed");
  auto text = s->read(R"({"type":"assistant","message":{"content":[{"type":"text","text":"All good"}]}})");
  EXPECT_EQ(text.messages.at(0).kind, "assistant");
  EXPECT_EQ(s->last_assistant(), "All good");
  auto done = s->read(R"({"type":"result","subtype":"success","is_error":false,"result":"All good","session_id":"S1","num_turns":2,"usage":{"input_tokens":20,"output_tokens":10},"total_cost_usd":0.5})");
  ASSERT_TRUE(done.terminal);
  EXPECT_TRUE(done.terminal->ok);
  EXPECT_EQ(done.terminal->session_id, "S1");
  EXPECT_NE(done.usage.value_or("").find("input_tokens=20 output_tokens=10"), std::string::npos);
  EXPECT_TRUE(s->read("not json at all").malformed);
}

TEST(AgentStream, ClaudeApiErrorReportedAsSuccessSubtypeIsNotOk_RF3) {
  auto s = make_agent_stream(Runner::claude);
  auto r = s->read(R"({"type":"result","subtype":"success","is_error":true,"result":"API Error: 400 bad","session_id":"S1"})");
  ASSERT_TRUE(r.terminal);
  EXPECT_FALSE(r.terminal->ok);
  EXPECT_NE(r.terminal->error.find("API Error: 400 bad"), std::string::npos);
}

TEST(AgentStream, CodexItemsAndTurnEvents_RF3) {
  auto s = make_agent_stream(Runner::codex);
  EXPECT_EQ(s->read(R"({"type":"thread.started","thread_id":"T1"})").session_id.value_or(""), "T1");
  auto started = s->read(R"({"type":"item.started","item":{"id":"i1","type":"command_execution","command":"cat secret","status":"in_progress"}})");
  ASSERT_EQ(started.messages.size(), 1u);
  EXPECT_EQ(started.messages[0].text, "shell: started");
  EXPECT_TRUE(s->read(R"({"type":"item.updated","item":{"id":"i1","type":"command_execution","status":"in_progress"}})").messages.empty());
  auto ended = s->read(R"({"type":"item.completed","item":{"id":"i1","type":"command_execution","command":"cat secret","aggregated_output":"TOPSECRET","exit_code":0,"status":"completed"}})");
  EXPECT_EQ(ended.messages.at(0).text, "shell: done (exit 0)");
  auto plan = s->read(R"({"type":"item.updated","item":{"id":"i2","type":"todo_list","items":[{"text":"read","completed":true},{"text":"write","completed":false}]}})");
  EXPECT_EQ(plan.messages.at(0).kind, "plan");
  EXPECT_EQ(plan.messages.at(0).text, "[x] read; [ ] write");
  s->read(R"({"type":"item.completed","item":{"id":"i3","type":"agent_message","text":"Done"}})");
  EXPECT_EQ(s->last_assistant(), "Done");
  auto done = s->read(R"({"type":"turn.completed","usage":{"input_tokens":3,"output_tokens":4}})");
  ASSERT_TRUE(done.terminal);
  EXPECT_TRUE(done.terminal->ok);

  auto f = make_agent_stream(Runner::codex);
  f->read(R"({"type":"error","message":"stream broke"})");
  auto failed = f->read(R"({"type":"turn.failed","error":{"message":"quota exceeded"}})");
  ASSERT_TRUE(failed.terminal);
  EXPECT_FALSE(failed.terminal->ok);
  EXPECT_EQ(failed.terminal->error, "quota exceeded");
}

TEST(AgentVerdict, OnlyTheExpectedSessionsCleanResultCompletes_RF3) {
  auto s = make_agent_stream(Runner::claude);
  AgentTerminal ok{true, "S1", "answer", ""};
  EXPECT_TRUE(agent_verdict(Runner::claude, ok, *s, "S1", "S1", 0).ok);
  EXPECT_EQ(agent_verdict(Runner::claude, ok, *s, "S1", "S1", 0).answer, "answer");
  EXPECT_EQ(agent_verdict(Runner::claude, ok, *s, "S2", "S1", 0).error_code, "agent_protocol");
  EXPECT_EQ(agent_verdict(Runner::claude, ok, *s, "S1", "S1", 1).error_code, "exit_status");
  EXPECT_EQ(agent_verdict(Runner::claude, std::nullopt, *s, "S1", "S1", 0).error_code, "agent_protocol");
  AgentTerminal api_error{false, "S1", "API Error: 400", "success: API Error: 400"};
  const auto v = agent_verdict(Runner::claude, api_error, *s, "S1", "S1", 1);
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.error_code, "agent_error");
  EXPECT_NE(v.message.find("API Error: 400"), std::string::npos);

  auto c = make_agent_stream(Runner::codex);
  c->read(R"({"type":"error","message":"unauthorized"})");
  EXPECT_EQ(agent_verdict(Runner::codex, std::nullopt, *c, "T1", "T1", 1).error_code, "agent_error");
  AgentTerminal turn_ok{true, "", "", ""};
  EXPECT_TRUE(agent_verdict(Runner::codex, turn_ok, *c, "T1", "T1", 0).ok);
  EXPECT_EQ(agent_verdict(Runner::codex, turn_ok, *c, "T1", "T9", 0).error_code, "agent_protocol");
}

TEST(AgentInvocation, ClaudeTurnsUseTheChosenSessionAndTheQuestionServer_RF2) {
  AgentRun run;
  run.allowed_tools = {"Read", "Bash(git diff:*)"};
  run.max_turns = 5;
  AgentTurn t;
  t.runner = Runner::claude;
  t.run = &run;
  t.cli = "/opt/claude";
  t.agentworks_cli = "/opt/agentworks";
  t.session = "11111111-2222-4333-8444-555555555555";
  auto a = agent_argv(t);
  EXPECT_EQ(a.front(), "/opt/claude");
  EXPECT_EQ(after(a, "--session-id"), t.session);
  EXPECT_EQ(after(a, "--output-format"), "stream-json");
  EXPECT_EQ(after(a, "--allowedTools"),
            "mcp__agentworks__request_input,mcp__agentworks__list_functions,mcp__agentworks__call_function,"
            "mcp__agentworks__get_function_call,mcp__agentworks__reply_function_call,"
            "mcp__agentworks__cancel_function_call,Read,Bash(git diff:*)")
      << "the call server's tools (R-D4), then the declaration's";
  EXPECT_EQ(after(a, "--disallowedTools"), "AskUserQuestion");
  EXPECT_EQ(after(a, "--max-turns"), "5");
  EXPECT_NE(after(a, "--mcp-config").find("\"/opt/agentworks\""), std::string::npos);
  EXPECT_TRUE(contains(a, "--strict-mcp-config"));
  t.resume = true;
  a = agent_argv(t);
  EXPECT_EQ(after(a, "--resume"), t.session);  // the correction turn continues the same conversation
  EXPECT_FALSE(contains(a, "--session-id"));
}

TEST(AgentInvocation, CodexTurnsKeepTheCallVariablesInTheShellAndResumeTheThread_RF2) {
  AgentRun run;
  run.sandbox = "workspace-write";
  AgentTurn t;
  t.runner = Runner::codex;
  t.run = &run;
  t.cli = "/opt/codex";
  t.agentworks_cli = "/opt/agentworks";
  auto a = agent_argv(t);
  EXPECT_EQ(std::vector<std::string>(a.begin(), a.begin() + 3), (std::vector<std::string>{"/opt/codex", "exec", "--json"}));
  EXPECT_TRUE(contains(a, "sandbox_mode=\"workspace-write\""));
  EXPECT_TRUE(contains(a, "shell_environment_policy.ignore_default_excludes=true"));
  EXPECT_TRUE(contains(a, "mcp_servers.agentworks.command=\"/opt/agentworks\""));
  EXPECT_EQ(a.back(), "-");
  t.resume = true;
  t.session = "T1";
  a = agent_argv(t);
  EXPECT_EQ(a[2], "resume");
  EXPECT_EQ(a[a.size() - 2], "T1");
}

TEST(AgentInvocation, EnvironmentPassesTheCliCredentialsButNotAnEnclosingSession_RF2) {
  ::setenv("ANTHROPIC_BASE_URL", "http://mock", 1);
  ::setenv("CLAUDECODE", "1", 1);
  ::setenv("UNRELATED_SECRET", "x", 1);
  AgentTurn t;
  t.runner = Runner::claude;
  t.tool_timeout_seconds = 90;
  const auto env = agent_environment(t, {"FUNCTION_RESULT_FILE=/r"});
  EXPECT_TRUE(contains(env, "FUNCTION_RESULT_FILE=/r"));
  EXPECT_TRUE(contains(env, "ANTHROPIC_BASE_URL=http://mock"));
  EXPECT_TRUE(contains(env, "MCP_TOOL_TIMEOUT=90000"));
  EXPECT_FALSE(contains(env, "CLAUDECODE=1"));
  EXPECT_FALSE(contains(env, "UNRELATED_SECRET=x"));
  ::unsetenv("ANTHROPIC_BASE_URL");
  ::unsetenv("CLAUDECODE");
  ::unsetenv("UNRELATED_SECRET");
}

TEST(AgentInvocation, SessionIdsAreVersion4Uuids) {
  const std::string id = new_session_uuid();
  ASSERT_EQ(id.size(), 36u);
  EXPECT_EQ(id[14], '4');
  EXPECT_NE(std::string("89ab").find(id[19]), std::string::npos);
  EXPECT_NE(new_session_uuid(), id);
}

TEST(AgentPrompt, TheContractIsAddedToTheTask_RF5) {
  PromptContext c;
  c.function = "review";
  c.call_id = "call_1";
  c.task = "Review PR 7";
  c.output_dir = "/crew/.calls/call_1";
  c.result_file = "/crew/.calls/call_1/result.json";
  c.output_schema_json = R"({"type":"object"})";
  const std::string p = agent_prompt(c);
  EXPECT_EQ(p.rfind("Review PR 7", 0), 0u);
  EXPECT_NE(p.find("/crew/.calls/call_1/result.json"), std::string::npos);
  EXPECT_NE(p.find(R"({"type":"object"})"), std::string::npos);
  EXPECT_NE(p.find("request_input"), std::string::npos);
  EXPECT_NE(correction_prompt(c, "result.json: missing property x").find("missing property x"), std::string::npos);
}

TEST(AgentDeclaration, TheExampleCrewIsAValidDeclaration_RF1) {
  const fs::path dir = fs::path(AGENTWORKS_SOURCE_DIR) / "examples" / "review-crew";
  // With the allowance its README registers it with.
  const auto d = load_declaration(
      dir, AgentAllowance{{"Read", "Grep", "Glob", "Write", "Bash(git diff:*)", "Bash(git log:*)"}, "read-only"}, "myproject");
  ASSERT_EQ(d.functions.size(), 2u);
  EXPECT_EQ(d.functions[0].runner, Runner::claude);
  EXPECT_EQ(d.functions[1].runner, Runner::codex);
}
