// The agent-runner scenarios, shared by the Claude Code and Codex tests: each scripts the mock for one
// conversation (found by a marker that only that call's prompt carries), calls the function over HTTP and asserts
// on the Call and on what the mock received.
#include <algorithm>
#include <set>

#include "driver/function_e2e_fixture.hpp"

namespace agentworks::e2e {

using nlohmann::json;
using namespace std::chrono_literals;

namespace {

constexpr auto kRunTimeout = std::chrono::milliseconds(150'000);

std::string text_or_empty(const json& v) { return v.is_string() ? v.get<std::string>() : std::string(); }

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

}  // namespace

void FunctionE2eTest::scenario_valid_result_completes() {
  const std::string m = "TASK-VALID-" + cli_;
  model_->script_conversation(m, {MockAnswer::tool(shell_call(write_result_command(R"({"ok":true})", "WROTE-" + m))),
                                  MockAnswer::reply("FINAL-" + m)});
  make_agent_crew("agents", json::array({agent_function("review", ok_schema())}));
  const std::string id = start_call("agents", "review", m);
  const json c = wait_terminal(id, kRunTimeout);

  EXPECT_EQ(c.value("status", ""), "completed") << c.dump(2);
  EXPECT_EQ(c.value("result", json()), json({{"ok", true}})) << c.dump(2);
  EXPECT_EQ(answer_of(c), "FINAL-" + m) << c.dump(2);
  EXPECT_EQ(count_events(c, "correction_started"), 0) << c.dump(2);
  const json agent = c.value("agent", json());
  ASSERT_TRUE(agent.is_object()) << c.dump(2);
  EXPECT_EQ(agent.value("cli", ""), cli_);
  const std::string session = text_or_empty(agent.value("session_id", json()));
  EXPECT_FALSE(session.empty()) << agent.dump();
  EXPECT_FALSE(text_or_empty(agent.value("version", json())).empty()) << agent.dump();

  // The shell tool ran (its output went back to the model) and every main turn of the run was in that session.
  const auto result = model_->wait_for_tool_result(shell_call("").tool_suffix, 0, 5s);
  ASSERT_TRUE(result) << model_->describe();
  EXPECT_TRUE(contains(result->output, "WROTE-" + m)) << result->output;
  const auto turns = model_->main_turns_with(m);
  EXPECT_EQ(turns.size(), 2u) << model_->describe();
  for (const auto& t : turns) EXPECT_TRUE(session.empty() || contains(t.body, session)) << "#" << t.seq;
  // The execution's messages show the agent's text and its tool use by name.
  const auto kinds = message_kinds(c);
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "assistant"), kinds.end()) << c.dump(2);
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "tool"), kinds.end()) << c.dump(2);
}

void FunctionE2eTest::scenario_correction_turn(bool fixed) {
  const std::string m = std::string(fixed ? "TASK-FIX-" : "TASK-BAD-") + cli_;
  model_->script_conversation(
      m, {MockAnswer::tool(shell_call(write_result_command(R"({"wrong":1})", "FIRST-RUN-" + m))),
          MockAnswer::reply("FIRST-ANSWER-" + m),
          MockAnswer::tool(shell_call(write_result_command(fixed ? R"({"ok":true})" : R"({"still":"wrong"})",
                                                           "SECOND-RUN-" + m))),
          MockAnswer::reply("SECOND-ANSWER-" + m)});
  make_agent_crew("agents", json::array({agent_function("review", ok_schema())}));
  const std::string id = start_call("agents", "review", m);
  const json c = wait_terminal(id, kRunTimeout);

  if (fixed) {
    EXPECT_EQ(c.value("status", ""), "completed") << c.dump(2);
    EXPECT_EQ(c.value("result", json()), json({{"ok", true}})) << c.dump(2);
  } else {
    EXPECT_EQ(c.value("status", ""), "failed") << c.dump(2);
    EXPECT_EQ(c.value("error", json::object()).value("code", ""), "result_invalid") << c.dump(2);
  }
  EXPECT_EQ(answer_of(c), "SECOND-ANSWER-" + m) << c.dump(2);
  EXPECT_EQ(count_events(c, "correction_started"), 1) << c.dump(2);

  // Four main turns: prompt -> tool, tool result -> first answer, correction -> tool, tool result -> answer. No
  // fifth (exactly one correction turn).
  const auto turns = model_->main_turns_with(m);
  ASSERT_EQ(turns.size(), 4u) << model_->describe();
  const ModelRequest& correction = turns[2];
  // The same session: its history (the first prompt, the first tool output, the first answer) and the errors.
  EXPECT_TRUE(contains(correction.conversation, "FIRST-RUN-" + m)) << correction.conversation;
  EXPECT_TRUE(contains(correction.conversation, "FIRST-ANSWER-" + m)) << correction.conversation;
  EXPECT_FALSE(contains(correction.last_user, "FIRST-ANSWER-" + m)) << correction.last_user;
  EXPECT_TRUE(contains(correction.last_user, "ok")) << "no validation error in the correction prompt:\n"
                                                    << correction.last_user;
  const std::string session = text_or_empty(c.value("agent", json::object()).value("session_id", json()));
  EXPECT_FALSE(session.empty()) << c.dump(2);
  EXPECT_TRUE(contains(correction.body, session)) << "the correction turn's request does not carry session " << session;
  EXPECT_TRUE(contains(turns[0].body, session)) << "the first turn's request does not carry session " << session;
}

void FunctionE2eTest::scenario_api_error_fails() {
  const std::string m = "TASK-APIERR-" + cli_;
  model_->script_conversation(m, {MockAnswer::api_error(400, "invalid_request_error", "mock API error: bad request")});
  make_agent_crew("agents", json::array({agent_function("review", ok_schema())}));
  const std::string id = start_call("agents", "review", m);
  const json c = wait_terminal(id, kRunTimeout);

  EXPECT_EQ(c.value("status", ""), "failed") << c.dump(2);
  const json error = c.value("error", json::object());
  EXPECT_EQ(error.value("code", ""), "agent_error") << c.dump(2);
  EXPECT_TRUE(contains(error.value("message", ""), "mock API error")) << c.dump(2);
  EXPECT_EQ(count_events(c, "completed"), 0) << c.dump(2);
  EXPECT_EQ(count_events(c, "correction_started"), 0) << c.dump(2);
  EXPECT_GE(model_->main_turns_with(m).size(), 1u) << model_->describe();
}

void FunctionE2eTest::scenario_request_input_waits_for_reply() {
  const std::string m = "TASK-ASK-" + cli_;
  const std::string answer = "branch-main-" + m;
  model_->script_conversation(m, {MockAnswer::tool(request_input_call("Which branch should I review for " + m + "?")),
                                  MockAnswer::reply("FINAL-" + m)});
  make_agent_crew("agents", json::array({agent_function("ask", nullptr)}));
  const std::string id = start_call("agents", "ask", m);

  const json waiting = wait_waiting_input(id, kRunTimeout);
  ASSERT_EQ(waiting.value("status", ""), "waiting_input") << waiting.dump(2) << model_->describe();
  const json pending = waiting.value("pending_inputs", json::array());
  ASSERT_EQ(pending.size(), 1u) << waiting.dump(2);
  EXPECT_TRUE(contains(pending[0].value("question", ""), "Which branch should I review for " + m)) << pending.dump();
  EXPECT_GE(count_events(waiting, "input_requested"), 1) << waiting.dump(2);
  // Nothing reached the model yet, and the call stays waiting (no answer, no fixed sleep: it is re-read).
  EXPECT_TRUE(model_->tool_results().empty()) << model_->describe();
  EXPECT_EQ(status(id).value("status", ""), "waiting_input");

  const json replied = reply(id, pending[0].value("request_id", ""), answer);
  EXPECT_EQ(replied.value("answered", false), true) << replied.dump();
  const auto result = model_->wait_for_tool_result("request_input", 0, 60s);
  ASSERT_TRUE(result) << model_->describe();
  EXPECT_TRUE(contains(result->output, answer)) << result->output;

  const json c = wait_terminal(id, kRunTimeout);
  EXPECT_EQ(c.value("status", ""), "completed") << c.dump(2);
  EXPECT_EQ(answer_of(c), "FINAL-" + m) << c.dump(2);
  const auto turns = model_->main_turns_with(m);
  ASSERT_EQ(turns.size(), 2u) << model_->describe();
  EXPECT_TRUE(contains(turns[1].conversation, answer)) << turns[1].conversation;
  EXPECT_FALSE(contains(turns[0].conversation, answer));
}

void FunctionE2eTest::scenario_stalled_run_fails() {
  const std::string m = "TASK-STALL-" + cli_;
  model_->script_conversation(m, {MockAnswer::hang()});
  make_agent_crew("agents", json::array({agent_function("review", ok_schema(), {{"idle_timeout_seconds", 3}})}));
  const auto started = std::chrono::steady_clock::now();
  const std::string id = start_call("agents", "review", m);
  ASSERT_TRUE(wait_hanging(1)) << model_->describe();
  const json c = wait_terminal(id, 90s);
  const auto took = std::chrono::steady_clock::now() - started;

  EXPECT_EQ(c.value("status", ""), "failed") << c.dump(2);
  EXPECT_EQ(c.value("error", json::object()).value("code", ""), "stalled") << c.dump(2);
  EXPECT_GE(took, 3s);
  EXPECT_EQ(count_events(c, "completed"), 0) << c.dump(2);
  EXPECT_EQ(model_->main_turns_with(m).size(), 1u) << model_->describe();
}

void FunctionE2eTest::scenario_kill_nine_interrupts() {
  const std::string m = "TASK-KILL-" + cli_;
  model_->script_conversation(m, {MockAnswer::hang()});
  make_agent_crew("agents", json::array({agent_function("review", ok_schema())}));
  const std::string id = start_call("agents", "review", m);
  ASSERT_TRUE(wait_hanging(1)) << model_->describe();
  const json running = wait_status(
      id, [](const json& c) { return !text_or_empty(c.value("agent", json::object()).value("session_id", json())).empty(); },
      30s);
  const std::string session = running.at("agent").at("session_id").get<std::string>();
  EXPECT_EQ(running.value("status", ""), "running") << running.dump(2);

  stop_server(false);  // SIGKILL, like a crash
  start_again_same_port();
  const json c = wait_terminal(id, 30s);
  EXPECT_EQ(c.value("status", ""), "interrupted") << c.dump(2);
  EXPECT_EQ(c.value("error", json::object()).value("code", ""), "interrupted") << c.dump(2);
  EXPECT_EQ(text_or_empty(c.value("agent", json::object()).value("session_id", json())), session) << c.dump(2);
  EXPECT_EQ(c.value("agent", json::object()).value("cli", ""), cli_) << c.dump(2);
  // Never resumed by itself: the mock sees no new turn of that conversation.
  EXPECT_EQ(status(id).value("status", ""), "interrupted");
  EXPECT_EQ(model_->main_turns_with(m).size(), 1u) << model_->describe();
}

void FunctionE2eTest::scenario_three_parallel_fourth_busy() {
  const std::vector<std::string> markers = {"TASK-PAR1-" + cli_, "TASK-PAR2-" + cli_, "TASK-PAR3-" + cli_};
  for (const auto& m : markers) model_->script_conversation(m, {MockAnswer::hang("DONE-" + m)});
  make_agent_crew("agents", json::array({agent_function("review", nullptr)}));
  std::vector<std::string> ids;
  for (const auto& m : markers) ids.push_back(start_call("agents", "review", m));
  ASSERT_TRUE(wait_hanging(3)) << model_->describe();

  const auto fourth = call(owner_http(), "agents", "review", json{{"text", "TASK-PAR4-" + cli_}});
  EXPECT_EQ(fourth.status, 503) << testing::describe(fourth);
  EXPECT_TRUE(contains(fourth.body, "busy")) << fourth.body;

  model_->release_hangs();
  std::set<std::string> sessions;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const json c = wait_terminal(ids[i], kRunTimeout);
    EXPECT_EQ(c.value("status", ""), "completed") << c.dump(2);
    EXPECT_EQ(answer_of(c), "DONE-" + markers[i]) << c.dump(2);
    sessions.insert(text_or_empty(c.value("agent", json::object()).value("session_id", json())));
  }
  sessions.erase("");
  EXPECT_EQ(sessions.size(), 3u) << "the three calls did not run in three sessions";
  EXPECT_EQ(model_->conversations_apart(markers), "") << model_->describe();
  EXPECT_TRUE(model_->main_turns_with("TASK-PAR4-" + cli_).empty()) << "the busy call reached the model";
}

void FunctionE2eTest::scenario_explicit_answer_is_what_it_sent() {
  const std::string m = "TASK-EXPLICIT-" + cli_;
  model_->script_conversation(
      m, {MockAnswer::tool({"send_message", [m](const ModelRequest&) { return json{{"text", "SENT-" + m}}.dump(); }}),
          MockAnswer::reply("NOTES-" + m)});
  make_agent_crew("agents", json::array({agent_function("talk", nullptr, {{"communication", "explicit"}})}));
  const std::string id = start_call("agents", "talk", m);
  const json c = wait_terminal(id, kRunTimeout);
  EXPECT_EQ(c.value("status", ""), "completed") << c.dump(2) << model_->describe();
  EXPECT_EQ(answer_of(c), "SENT-" + m) << "the answer is what it sent, not its final text: " << c.dump(2);
  const auto kinds = message_kinds(c);
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "message"), kinds.end()) << c.dump(2);
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "commentary"), kinds.end()) << c.dump(2);
  EXPECT_EQ(std::find(kinds.begin(), kinds.end(), "assistant"), kinds.end()) << "its text is commentary";
  EXPECT_EQ(count_events(c, "nudged"), 0) << c.dump(2);
  const auto turns = model_->main_turns_with(m);
  ASSERT_FALSE(turns.empty());
  EXPECT_TRUE(contains(turns[0].conversation, "How you talk")) << turns[0].conversation;
}

void FunctionE2eTest::scenario_explicit_no_reply_and_silence() {
  const std::string declined = "TASK-DECLINE-" + cli_;
  const std::string silent = "TASK-SILENT-" + cli_;
  model_->script_conversation(
      declined, {MockAnswer::tool({"no_reply", [](const ModelRequest&) { return json{{"reason", "nothing new"}}.dump(); }}),
                 MockAnswer::reply("NOTES-" + declined)});
  model_->script_conversation(silent, {MockAnswer::reply("FIRST-" + silent), MockAnswer::reply("SECOND-" + silent)});
  make_agent_crew("agents", json::array({agent_function("talk", nullptr, {{"communication", "explicit"}})}));

  const json d = wait_terminal(start_call("agents", "talk", declined), kRunTimeout);
  EXPECT_EQ(d.value("status", ""), "completed") << d.dump(2) << model_->describe();
  EXPECT_TRUE(d.at("answer").is_null()) << d.dump(2);
  EXPECT_EQ(count_events(d, "no_reply"), 1) << d.dump(2);
  EXPECT_EQ(count_events(d, "nudged"), 0) << "a decline is an answer, not a silence";

  const json s = wait_terminal(start_call("agents", "talk", silent), kRunTimeout);
  EXPECT_EQ(s.value("status", ""), "completed") << s.dump(2) << model_->describe();
  EXPECT_TRUE(s.at("answer").is_null()) << "its text is not the answer: " << s.dump(2);
  EXPECT_EQ(count_events(s, "nudged"), 1) << s.dump(2);
  EXPECT_EQ(count_events(s, "ended_silent"), 1) << s.dump(2);
  const auto turns = model_->main_turns_with(silent);
  ASSERT_EQ(turns.size(), 2u) << "nudged once, in the same session: " << model_->describe();
  EXPECT_TRUE(contains(turns[1].last_user, "without send_message or no_reply")) << turns[1].last_user;
  EXPECT_TRUE(contains(turns[1].conversation, "FIRST-" + silent)) << "the same session";
}

}  // namespace agentworks::e2e
