// The fixture of the agent-runner end-to-end tests (functions run by the real Claude Code / Codex): a temp HOME,
// the mock model, and a real agentworks-server started with what an agent run needs in its environment (node_modules/.bin
// and the agentworks build dir on PATH, Claude Code pointed at the mock, a CODEX_HOME whose provider reads
// OPENAI_API_KEY), the owner logged in, Crews whose .agentworks/functions.json declares run.claude / run.codex,
// and the call, status and reply routes over HTTP. Polls with deadlines, never fixed sleeps.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mock_model/mock_model.hpp"
#include "support/crew_fixture.hpp"

namespace agentworks::e2e {

class FunctionE2eTest : public testing::CrewTest {
 protected:
  // `cli` is "claude" or "codex": the agent the test's functions run.
  explicit FunctionE2eTest(std::string cli) : cli_(std::move(cli)) {}
  void SetUp() override;  // skips (or fails, when required) without the CLI
  void TearDown() override;

  // A call of `cli`'s shell tool running `command` (Claude: Bash {"command"}; Codex: exec_command {"cmd"}).
  static ScriptedToolCall shell_call(const std::string& cli, const std::string& command);
  ScriptedToolCall shell_call(const std::string& command) const { return shell_call(cli_, command); }
  // A call of the execution's agentworks MCP tool request_input with `question`.
  static ScriptedToolCall request_input_call(const std::string& question);
  // The shell command that writes `json_text` to $FUNCTION_RESULT_FILE, then echoes `echo`.
  static std::string write_result_command(const std::string& json_text, const std::string& echo);

  // Function `name` run by `cli` with the prompt "Do task {{text}} ..." over inputs {"text": string}; `output_schema`
  // null means none; `extra` keys are set on the declaration (e.g. idle_timeout_seconds).
  static nlohmann::json agent_function_for(const std::string& cli, const std::string& name,
                                       const nlohmann::json& output_schema, const nlohmann::json& extra = {});
  nlohmann::json agent_function(const std::string& name, const nlohmann::json& output_schema,
                                const nlohmann::json& extra = {}) const {
    return agent_function_for(cli_, name, output_schema, extra);
  }
  // {"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"],"additionalProperties":false}
  static nlohmann::json ok_schema();

  // POST /v1/crews with the allowance the agent functions need (Claude's Bash, Codex workspace-write).
  testing::HttpResponse register_agent_crew(const std::string& name, const std::filesystem::path& dir);
  // A Crew folder NAME declaring `functions`, registered with register_agent_crew (201 required).
  nlohmann::json make_agent_crew(const std::string& name, const nlohmann::json& functions);
  // A Crew folder NAME declaring `functions` and, in .agentworks/crew.json, this CLI as its own agent (R-K2) with
  // the allowance the agent functions use; registered (201 required), and the owner's agent "worker" registered.
  void make_talking_crew(const std::string& name, const nlohmann::json& functions);
  // A call of `function` with arguments {"text": marker} (201 required); returns its call_id.
  std::string start_call(const std::string& crew, const std::string& function, const std::string& marker);
  // POST /v1/calls/{id}/replies (200 required).
  nlohmann::json reply(const std::string& call_id, const std::string& request_id, const std::string& answer);
  // Waits until the call is waiting_input with a pending input; returns the call.
  nlohmann::json wait_waiting_input(const std::string& call_id, std::chrono::milliseconds timeout);
  // Waits until the mock holds `n` hanging main turns (reply "hang").
  bool wait_hanging(std::size_t n, std::chrono::milliseconds timeout = std::chrono::seconds(90)) const;
  // How many events of `type` the call's page holds.
  static int count_events(const nlohmann::json& call, const std::string& type);
  // The kinds of the call's messages.
  static std::vector<std::string> message_kinds(const nlohmann::json& call);

  // The scenarios both CLIs' tests run (function_e2e_scenarios.cpp), each against a fresh Crew.
  // The agent writes a valid result through its shell tool: completed, that result, the final text as answer,
  // agent.cli/session_id/version set, no correction turn.
  void scenario_valid_result_completes();
  // An invalid first result: exactly one correction turn in the same session (the mock's request holds the
  // earlier history and the validation errors), then completed (`fixed`) or failed result_invalid.
  void scenario_correction_turn(bool fixed);
  // The mock answers an API error: failed agent_error, never completed.
  void scenario_api_error_fails();
  // request_input: waiting_input until the reply; the answer reaches the mock; then completed.
  void scenario_request_input_waits_for_reply();
  // idle_timeout_seconds 3 and a mock that hangs: failed stalled.
  void scenario_stalled_run_fails();
  // kill -9 of the server during a run: interrupted after the restart, the session id kept.
  void scenario_kill_nine_interrupts();
  // Three parallel calls in three sessions (three separate conversations at the mock), the fourth busy.
  void scenario_three_parallel_fourth_busy();
  // R-X7, a function with "communication": "explicit": its answer is what it sent with send_message (its own text
  // is commentary); a no_reply completes it with no answer; a silent turn is nudged once, then completes with no
  // answer and an ended_silent event.
  void scenario_explicit_answer_is_what_it_sent();
  void scenario_explicit_no_reply_and_silence();

  std::string cli_;
  std::unique_ptr<MockModel> model_;
  testing::EnvOverrides agent_env_;  // what the server got on top of the temp HOME (both CLIs' offline setup)
};

}  // namespace agentworks::e2e
