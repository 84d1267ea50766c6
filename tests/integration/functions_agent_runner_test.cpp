// The agent runners' rules (R-F2, R-F3, R-F5, R-F6) against scripted stand-ins for `claude` and `codex`
// (AGENTWORKS_CLAUDE_BIN / AGENTWORKS_CODEX_BIN), so every edge of the outcome rules is reached on purpose: only
// the chosen session's clean result completes; an API error, a missing result, another session's result or a
// bad exit fails; the correction turn resumes the same session; a silent run is stalled; a pending question
// pauses the idle timeout; the call's environment reaches the agent; a crash leaves the session id behind. The
// real CLIs run the same paths in tests/e2e/functions_*_e2e_test.cpp.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "testing/binaries.hpp"
#include "support/crew_fixture.hpp"

namespace agentworks::testing {
namespace {

// A stand-in for `claude -p --output-format stream-json`: the task's "MODE=x" picks the behaviour; each turn
// appends "SESSION RESUMED" to turns.log and its environment to env.txt in the call folder.
std::string fake_claude(const std::string& cli) {
  return R"SH(#!/bin/sh
session=""; resumed=0
while [ $# -gt 0 ]; do
  case "$1" in
    --session-id) session="$2"; shift ;;
    --resume) session="$2"; resumed=1; shift ;;
  esac
  shift
done
prompt=$(cat)
[ "$resumed" = 1 ] && prompt="MODE=fix"  # the correction turn's prompt is agentworks' own text
echo "$session $resumed" >> "$FUNCTION_OUTPUT_DIR/turns.log"
env > "$FUNCTION_OUTPUT_DIR/env.txt"
init() { printf '{"type":"system","subtype":"init","session_id":"%s","claude_code_version":"9.8.7","model":"fake"}\n' "$1"; }
say() { printf '{"type":"assistant","message":{"content":[{"type":"text","text":"%s"}]}}\n' "$1"; }
result() { printf '{"type":"result","subtype":"success","is_error":false,"result":"%s","session_id":"%s","num_turns":1,"usage":{"input_tokens":5,"output_tokens":6}}\n' "$1" "$2"; }
case "$prompt" in
  *MODE=ok*)
    init "$session"
    printf '{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"secret-arg"}}]}}\n'
    printf '{"ok":true}' > "$FUNCTION_RESULT_FILE"
    printf '{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"secret-output","is_error":false}]}}\n'
    say "reviewed"; result "reviewed" "$session" ;;
  *MODE=fix*)
    init "$session"
    if [ "$resumed" = 1 ]; then printf '{"ok":true}' > "$FUNCTION_RESULT_FILE"; say "fixed"; result "fixed" "$session"
    else printf '{"ok":"yes"}' > "$FUNCTION_RESULT_FILE"; say "first try"; result "first try" "$session"; fi ;;
  *MODE=other_session*) init "$session"; say "done"; result "done" "00000000-0000-4000-8000-000000000000" ;;
  *MODE=no_result*) init "$session"; say "half way" ;;
  *MODE=api_error*)
    init "$session"; say "API Error: 500 overloaded"
    printf '{"type":"result","subtype":"success","is_error":true,"result":"API Error: 500 overloaded","session_id":"%s"}\n' "$session"
    exit 1 ;;
  *MODE=bad_exit*) printf '{"ok":true}' > "$FUNCTION_RESULT_FILE"; init "$session"; result "done" "$session"; exit 3 ;;
  *MODE=stall*) init "$session"; sleep 300 ;;
  *MODE=ask_then_think*)
    init "$session"
    answer=$(")SH" + cli + R"SH(" functions ask --question "Which branch?")
    sleep 1.5
    printf '{"ok":true}' > "$FUNCTION_RESULT_FILE"
    say "branch $answer"; result "branch $answer" "$session" ;;
  *MODE=ask*)
    init "$session"
    answer=$(")SH" + cli + R"SH(" functions ask --question "Which branch?")
    printf '{"ok":true}' > "$FUNCTION_RESULT_FILE"
    say "branch $answer"; result "branch $answer" "$session" ;;
esac
)SH";
}

// A stand-in for `codex exec --json` (and `exec resume ... THREAD -`).
const char* kFakeCodex = R"SH(#!/bin/sh
[ "$1" = "--version" ] && { echo "codex-cli 7.6.5"; exit 0; }
thread="0199aaaa-fake-thread"; resumed=0; prev=""
for a in "$@"; do
  [ "$a" = "resume" ] && resumed=1
  [ "$a" = "-" ] && [ "$resumed" = 1 ] && thread="$prev"
  prev="$a"
done
prompt=$(cat)
[ "$resumed" = 1 ] && prompt="MODE=fix"
echo "$thread $resumed $*" >> "$FUNCTION_OUTPUT_DIR/turns.log"
printf '{"type":"thread.started","thread_id":"%s"}\n{"type":"turn.started"}\n' "$thread"
case "$prompt" in
  *MODE=ok*)
    printf '{"type":"item.started","item":{"id":"i1","type":"command_execution","command":"secret-arg","status":"in_progress"}}\n'
    printf '{"ok":true}' > "$FUNCTION_RESULT_FILE"
    printf '{"type":"item.completed","item":{"id":"i1","type":"command_execution","command":"secret-arg","aggregated_output":"secret-output","exit_code":0,"status":"completed"}}\n'
    printf '{"type":"item.completed","item":{"id":"i2","type":"agent_message","text":"codex answer"}}\n'
    printf '{"type":"turn.completed","usage":{"input_tokens":3,"output_tokens":4}}\n' ;;
  *MODE=fix*)
    if [ "$resumed" = 1 ]; then printf '{"ok":true}' > "$FUNCTION_RESULT_FILE"; else printf '[]' > "$FUNCTION_RESULT_FILE"; fi
    printf '{"type":"item.completed","item":{"id":"i2","type":"agent_message","text":"turn %s"}}\n' "$resumed"
    printf '{"type":"turn.completed","usage":{"input_tokens":3,"output_tokens":4}}\n' ;;
  *MODE=error*) printf '{"type":"error","message":"unexpected status 401 Unauthorized"}\n'; exit 1 ;;
  *MODE=failed*) printf '{"type":"turn.failed","error":{"message":"quota exceeded"}}\n'; exit 1 ;;
esac
)SH";

class FunctionsAgentRunner : public CrewTest {
 protected:
  void SetUp() override { start_with({}); }

  // The server with the stand-ins as its agent CLIs (`overrides` last) and a Crew "agents" of one claude and one
  // codex function.
  void start_with(const EnvOverrides& overrides) {
    const auto bin = home_.path("fake-bin");
    std::filesystem::create_directories(bin);
    write_text(bin / "claude", fake_claude(cli_binary()));
    write_text(bin / "codex", kFakeCodex);
    std::filesystem::permissions(bin / "claude", std::filesystem::perms::owner_all);
    std::filesystem::permissions(bin / "codex", std::filesystem::perms::owner_all);
    EnvOverrides env;
    env["AGENTWORKS_CLAUDE_BIN"] = (bin / "claude").string();
    env["AGENTWORKS_CODEX_BIN"] = (bin / "codex").string();
    env["AGENTWORKS_CLI_BIN"] = cli_binary();
    env["ANTHROPIC_BASE_URL"] = "http://127.0.0.1:9/fake";  // a CLI setting: passed through
    env["CLAUDECODE"] = "1";                                // an enclosing session's marker: dropped
    env["UNRELATED_SECRET"] = "hush";                       // anything else of the server's: dropped
    for (const auto& [name, value] : overrides) env[name] = value;
    start_server({}, env);
    const json inputs = {{"type", "object"}, {"properties", {{"mode", {{"type", "string"}}}}}};
    const json schema = {{"type", "object"}, {"properties", {{"ok", {{"type", "boolean"}}}}}, {"required", {"ok"}}};
    auto agent_fn = [&](const std::string& name, const json& run, int idle) {
      return json{{"name", name}, {"inputs", inputs}, {"output_schema", schema}, {"run", run},
                  {"idle_timeout_seconds", idle}};
    };
    make_crew("agents",
              json::array({agent_fn("claude_fn", {{"claude", {{"prompt", "Work. MODE={{mode}}"}}}}, 2),
                           agent_fn("codex_fn", {{"codex", {{"prompt", "Work. MODE={{mode}}"}}}}, 2)}),
              {});
  }

  json run(const std::string& function, const std::string& mode) {
    const std::string id = call_ok("agents", function, {{"mode", mode}}).at("call_id").get<std::string>();
    return wait_terminal(id);
  }
  std::string read_call_file(const json& call, const std::string& name) {
    std::ifstream in(call_dir("agents", call.at("call_id").get<std::string>()) / name);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // Leaves the call's question unanswered for `hold`, checking that the call stays waiting_input, then answers
  // "main" and waits for the call to end.
  json answer_after_waiting(const std::string& id, const json& waiting, std::chrono::milliseconds hold) {
    const auto until = std::chrono::steady_clock::now() + hold;
    while (std::chrono::steady_clock::now() < until) {
      const json now = status(id);
      if (now.at("status") != "waiting_input") return now;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    const std::string request = waiting.at("pending_inputs").at(0).at("request_id").get<std::string>();
    http_json(owner_http(), "POST", "/v1/calls/" + id + "/replies",
              json{{"request_id", request}, {"answer", "main"}}.dump(), 200);
    return wait_terminal(id);
  }
  static std::string error_code(const json& call) {
    return call.at("error").is_object() ? call["error"].value("code", "") : "";
  }
};

TEST_F(FunctionsAgentRunner, ClaudeCleanResultOfTheChosenSessionCompletes_R_F3_R_F5) {
  const json c = run("claude_fn", "ok");
  ASSERT_EQ(c.at("status"), "completed") << c.dump();
  EXPECT_EQ(c.at("result"), json({{"ok", true}}));
  EXPECT_EQ(answer_of(c), "reviewed");
  const json& agent = c.at("agent");
  EXPECT_EQ(agent.at("cli"), "claude");
  EXPECT_EQ(agent.at("version"), "9.8.7");
  const std::string session = agent.at("session_id").get<std::string>();
  EXPECT_EQ(read_call_file(c, "turns.log"), session + " 0\n") << "the session id the server chose before the start";
  const std::vector<std::string> texts = message_texts(c);
  EXPECT_NE(std::find(texts.begin(), texts.end(), "Bash: started"), texts.end()) << c.dump();
  EXPECT_NE(std::find(texts.begin(), texts.end(), "Bash: done"), texts.end()) << c.dump();
  EXPECT_EQ(c.dump().find("secret-arg"), std::string::npos) << "tool arguments never reach the status";
  EXPECT_EQ(c.dump().find("secret-output"), std::string::npos) << "tool results never reach the status";
  const std::vector<std::string> events = event_types(c);
  EXPECT_NE(std::find(events.begin(), events.end(), "usage"), events.end()) << c.dump();
}

TEST_F(FunctionsAgentRunner, ClaudeFailuresAreNeverSuccess_R_F3) {
  const json api = run("claude_fn", "api_error");
  EXPECT_EQ(api.at("status"), "failed");
  EXPECT_EQ(error_code(api), "agent_error") << api.dump();
  EXPECT_NE(api.at("error").value("message", "").find("API Error: 500 overloaded"), std::string::npos) << api.dump();
  const json other = run("claude_fn", "other_session");
  EXPECT_EQ(error_code(other), "agent_protocol") << other.dump();
  const json none = run("claude_fn", "no_result");
  EXPECT_EQ(error_code(none), "agent_protocol") << none.dump();
  EXPECT_EQ(answer_of(none), "half way") << "the last assistant text is kept";
  const json bad = run("claude_fn", "bad_exit");
  EXPECT_EQ(error_code(bad), "exit_status") << bad.dump();
}

TEST_F(FunctionsAgentRunner, ClaudeCorrectionTurnResumesTheSameSession_R_F5) {
  const json c = run("claude_fn", "fix");
  ASSERT_EQ(c.at("status"), "completed") << c.dump();
  EXPECT_EQ(c.at("result"), json({{"ok", true}}));
  EXPECT_EQ(answer_of(c), "fixed");
  EXPECT_TRUE(c.at("correction_turn").get<bool>());
  const std::string session = c.at("agent").at("session_id").get<std::string>();
  EXPECT_EQ(read_call_file(c, "turns.log"), session + " 0\n" + session + " 1\n")
      << "the correction turn is --resume of the same session, never a new one";
}

TEST_F(FunctionsAgentRunner, SilentRunFailsAsStalled_R_F3) {
  const json c = run("claude_fn", "stall");
  EXPECT_EQ(c.at("status"), "failed");
  EXPECT_EQ(error_code(c), "stalled") << c.dump();
  const std::vector<std::string> events = event_types(c);
  EXPECT_NE(std::find(events.begin(), events.end(), "stalled"), events.end()) << c.dump();
}

TEST_F(FunctionsAgentRunner, PendingQuestionPausesTheIdleTimeout_R_F3) {
  const std::string id = call_ok("agents", "claude_fn", {{"mode", "ask"}}).at("call_id").get<std::string>();
  const json waiting = wait_status(id, [](const json& c) { return !c.at("pending_inputs").empty(); });
  EXPECT_EQ(waiting.at("status"), "waiting_input");
  // Longer than the 2 s idle timeout: a question waiting for the caller is not a stall.
  const json done = answer_after_waiting(id, waiting, std::chrono::milliseconds(3500));
  EXPECT_EQ(done.at("status"), "completed") << done.dump();
  EXPECT_EQ(answer_of(done), "branch main");
}

// The idle clock starts again at the answer: an agent that thinks for most of its idle timeout after it is not
// stalled, whenever in the timer's period the answer came (it stalled when the answer came late in one).
TEST_F(FunctionsAgentRunner, AnAnsweredQuestionGivesTheAgentAWholeIdleTimeout_R_F3) {
  const std::string id = call_ok("agents", "claude_fn", {{"mode", "ask_then_think"}}).at("call_id").get<std::string>();
  const json waiting = wait_status(id, [](const json& c) { return !c.at("pending_inputs").empty(); });
  ASSERT_EQ(waiting.at("status"), "waiting_input") << waiting.dump();
  // Past the first idle check (2 s), so the answer comes part-way into a period the check started while waiting.
  const json done = answer_after_waiting(id, waiting, std::chrono::milliseconds(3000));
  EXPECT_EQ(done.at("status"), "completed") << done.dump();
  EXPECT_EQ(answer_of(done), "branch main");
}

TEST_F(FunctionsAgentRunner, AgentGetsTheCallEnvironmentAndTheCliSettingsOnly_R_F2) {
  const json c = run("claude_fn", "ok");
  const std::string env = read_call_file(c, "env.txt");
  for (const char* needed : {"FUNCTION_RESULT_FILE=", "FUNCTION_OUTPUT_DIR=", "AGENTWORKS_CALL_ID=",
                             "AGENTWORKS_CALL_TOKEN=", "AGENTWORKS_SERVER=", "ANTHROPIC_BASE_URL=http://127.0.0.1:9/fake",
                             "MCP_TOOL_TIMEOUT="})
    EXPECT_NE(env.find(needed), std::string::npos) << needed << " missing from:\n" << env;
  EXPECT_EQ(env.find("CLAUDECODE="), std::string::npos) << env;
  EXPECT_EQ(env.find("UNRELATED_SECRET="), std::string::npos) << env;
}

TEST_F(FunctionsAgentRunner, CodexTurnCompletedCompletesWithTheLastAgentMessage_R_F3) {
  const json c = run("codex_fn", "ok");
  ASSERT_EQ(c.at("status"), "completed") << c.dump();
  EXPECT_EQ(answer_of(c), "codex answer");
  EXPECT_EQ(c.at("agent").at("cli"), "codex");
  EXPECT_EQ(c.at("agent").at("session_id"), "0199aaaa-fake-thread");
  EXPECT_EQ(c.dump().find("secret-output"), std::string::npos);
  const std::vector<std::string> texts = message_texts(c);
  EXPECT_NE(std::find(texts.begin(), texts.end(), "shell: done (exit 0)"), texts.end()) << c.dump();
}

TEST_F(FunctionsAgentRunner, CodexErrorsFailAndTheCorrectionResumesTheThread_R_F3_R_F5) {
  EXPECT_EQ(error_code(run("codex_fn", "error")), "agent_error");
  EXPECT_EQ(error_code(run("codex_fn", "failed")), "agent_error");
  const json fixed = run("codex_fn", "fix");
  ASSERT_EQ(fixed.at("status"), "completed") << fixed.dump();
  EXPECT_EQ(answer_of(fixed), "turn 1");
  const std::string turns = read_call_file(fixed, "turns.log");
  EXPECT_NE(turns.find("0199aaaa-fake-thread 1 exec resume"), std::string::npos) << turns;
}

TEST_F(FunctionsAgentRunner, CrashLeavesTheAgentCallInterruptedWithItsSession_R_F6) {
  const std::string id = call_ok("agents", "claude_fn", {{"mode", "ask"}}).at("call_id").get<std::string>();
  const json waiting = wait_status(id, [](const json& c) { return !c.at("pending_inputs").empty(); });
  const std::string session = waiting.at("agent").at("session_id").get<std::string>();
  stop_server(/*graceful=*/false);
  start_again_same_port();
  const json c = wait_terminal(id);
  EXPECT_EQ(c.at("status"), "interrupted") << c.dump();
  EXPECT_EQ(c.at("agent").at("session_id"), session) << "the transcript can still be found";
  EXPECT_EQ(line_count(call_dir("agents", id) / "turns.log"), 1u) << "never resumed by itself";
}

class FunctionsAgentRunnerWithoutCli : public FunctionsAgentRunner {
 protected:
  void SetUp() override { start_with({{"AGENTWORKS_CLAUDE_BIN", home_.path("nowhere/claude").string()}}); }
};

TEST_F(FunctionsAgentRunnerWithoutCli, MissingCliFailsWithTheFix_R_F2) {
  const json c = run("claude_fn", "ok");
  EXPECT_EQ(error_code(c), "spawn_failed") << c.dump();
  EXPECT_NE(c.at("error").value("message", "").find("AGENTWORKS_CLAUDE_BIN"), std::string::npos) << c.dump();
  // It never started, so it has no files: not "expired", which would send the person looking for a cleanup.
  EXPECT_EQ(c.at("files_expired"), false) << c.dump();
  EXPECT_TRUE(c.at("files").empty()) << c.dump();
  const auto text = owner().run({"functions", "call-status", c.at("call_id").get<std::string>()});
  EXPECT_EQ(text.out.find("expired"), std::string::npos) << text.out;
  // Reloading (as registering) says what to fix first, for that function only; it still succeeds.
  const json reloaded = cli_ok(owner(), {"crews", "reload", "agents"});
  ASSERT_EQ(reloaded.at("warnings").size(), 1u) << reloaded.dump();
  EXPECT_NE(reloaded.at("warnings")[0].get<std::string>().find(
                "function claude_fn: claude is not on agentworks-server's PATH: install Claude Code or set "
                "AGENTWORKS_CLAUDE_BIN"),
            std::string::npos)
      << reloaded.dump();
  const auto shown = owner().run({"crews", "reload", "agents"});
  EXPECT_NE(shown.out.find("warning: function claude_fn:"), std::string::npos) << shown.out;
}

TEST_F(FunctionsAgentRunner, CodexVersionIsRecorded_R_F3) {
  const json c = run("codex_fn", "ok");
  const json again = wait_status(c.at("call_id").get<std::string>(),
                                 [](const json& s) { return s.at("agent").at("version").is_string(); });
  EXPECT_EQ(again.at("agent").at("version"), "7.6.5");
}

}  // namespace
}  // namespace agentworks::testing
