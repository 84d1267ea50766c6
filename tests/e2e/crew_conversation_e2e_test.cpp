// Talking to a Crew (R-K1, R-K2) with the real Claude Code and Codex against the mock model: a message to
// `crew:NAME` starts a headless turn of the Crew's own agent in its folder, which answers in the same conversation
// with send_message; the next message resumes the same session; messages that arrive during a turn go to the next
// turn together; a Crew full of running calls delays a turn and never refuses the message; a kill -9 of the server
// mid-turn leaves the message `interrupted` and the next message continues the conversation (resumed, or, when the
// crash came before Claude wrote the session down, started afresh under the same id with a recap).
#include <gtest/gtest.h>

#include <ctime>
#include <string>

#include "agentworks/utc_time.hpp"

#include "driver/function_e2e_fixture.hpp"

namespace agentworks::e2e {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

constexpr auto kTurnTimeout = 150s;

class CrewConversationE2eTest : public FunctionE2eTest {
 protected:
  explicit CrewConversationE2eTest(std::string cli) : FunctionE2eTest(std::move(cli)) {}

  // Crew "api" whose crew.json declares this CLI as its agent, one agent function (for the full-Crew case) and one
  // command function its agent calls (R-D4).
  void make_talking_crew() {
    write_script(make_crew_dir("api"), "tools/build_status.sh", "echo BUILD-GREEN-42");
    FunctionE2eTest::make_talking_crew(
        "api", json::array({agent_function("review", nullptr), function_decl("build_status")}));
  }
  json send(const json& body) {
    json b = body;
    b["agent_name"] = "worker";
    return http_json(owner_http(), "POST", "/v1/messages", b.dump(), 201);
  }
  json ask(const std::string& text) { return send({{"target", "crew:api"}, {"message", text}}); }
  static ScriptedToolCall send_message(const std::string& text) {
    return {"send_message", [text](const ModelRequest&) { return json{{"text", text}}.dump(); }};
  }
  // Waits until the worker's inbox holds a message with `text` from the Crew's agent.
  json wait_answer(const std::string& inbox_id, const std::string& text) {
    json found;
    const bool ok = testing::wait_until(
        [&] {
          const json page = read_inbox(owner(), inbox_id);  // kept: a loop over a temporary's member dangles
          for (const json& m : page.at("messages"))
            if (m.value("message", "") == text) {
              found = m;
              return true;
            }
          return false;
        },
        kTurnTimeout, 200ms);
    if (!ok) throw std::runtime_error("no answer '" + text + "' in " + read_inbox(owner(), inbox_id).dump(2));
    return found;
  }
  std::string reply_state(const std::string& message_id) {
    return http_json(owner_http(), "GET", "/v1/messages/" + message_id + "/receipt", std::nullopt, 200)
        .at("delivery")
        .value("reply_state", "");
  }
  json crew_conversation() {
    const json crew = http_json(owner_http(), "GET", "/v1/crews/api", std::nullopt, 200);
    return crew.at("conversations").empty() ? json::object() : crew.at("conversations")[0];
  }

  void scenario_answers_then_resumes();
  void scenario_messages_during_a_turn_wait_for_the_next();
  void scenario_full_crew_delays();
  void scenario_kill_mid_turn();
  void scenario_wakeup_prompts_the_conversation();
  void scenario_a_call_outcome_prompts_the_conversation();
};

void CrewConversationE2eTest::scenario_answers_then_resumes() {
  const std::string q1 = "Q1-" + cli_ + ": what changed in v2?";
  model_->script_conversation(q1, {MockAnswer::tool(send_message("ANSWER-1: the auth module")),
                                   MockAnswer::reply("notes 1"),
                                   MockAnswer::tool(send_message("ANSWER-2: and the billing module")),
                                   MockAnswer::reply("notes 2")});
  make_talking_crew();
  const json r1 = ask(q1);
  EXPECT_FALSE(r1.contains("call_id")) << r1.dump();
  const std::string inbox_id = r1.at("inbox_id");
  const json a1 = wait_answer(inbox_id, "ANSWER-1: the auth module");
  EXPECT_EQ(a1.at("sender").value("agent_name", ""), "crew:api") << a1.dump();
  EXPECT_EQ(reply_state(r1.at("message_id")), "replied");

  const std::string q2 = "Q2-" + cli_ + ": and v3?";
  const json r2 = send({{"inbox_id", inbox_id}, {"message", q2}});
  wait_answer(inbox_id, "ANSWER-2: and the billing module");
  const auto second = model_->main_turns_with(q2);
  ASSERT_FALSE(second.empty()) << model_->describe();
  EXPECT_NE(second[0].conversation.find(q1), std::string::npos) << "the same session resumed: " << second[0].conversation;
  EXPECT_NE(second[0].conversation.find("You answer questions about the api project."), std::string::npos);
  EXPECT_EQ(reply_state(r2.at("message_id")), "replied");
  const json conv = crew_conversation();
  EXPECT_EQ(conv.value("turns", 0), 2) << conv.dump();
}

void CrewConversationE2eTest::scenario_messages_during_a_turn_wait_for_the_next() {
  const std::string q1 = "SLOW-" + cli_ + ": run the long check";
  model_->script_conversation(q1, {MockAnswer::tool(send_message("CHECKED")), MockAnswer::reply("done"),
                                   MockAnswer::tool(send_message("BOTH SEEN")), MockAnswer::reply("done")});
  model_->slow_turn_once(q1, 8s);
  make_talking_crew();
  const json r1 = ask(q1);
  ASSERT_TRUE(model_->wait_for_user_text(q1, 60s)) << model_->describe();
  const std::string m2 = "LATE-A-" + cli_, m3 = "LATE-B-" + cli_;
  send({{"inbox_id", r1.at("inbox_id")}, {"message", m2}});
  send({{"inbox_id", r1.at("inbox_id")}, {"message", m3}});
  EXPECT_EQ(crew_conversation().value("turn", ""), "running") << "the late messages came during the turn";
  wait_answer(r1.at("inbox_id"), "BOTH SEEN");
  const auto late = model_->wait_for_user_text(m2, 30s);
  ASSERT_TRUE(late) << model_->describe();
  EXPECT_NE(late->last_user.find(m3), std::string::npos) << "given to the next turn together: " << late->last_user;
  EXPECT_EQ(late->last_user.find("run the long check"), std::string::npos) << "the first message was not given again";
  EXPECT_NE(late->conversation.find(q1), std::string::npos) << "the same session: " << late->conversation;
  wait_answer(r1.at("inbox_id"), "CHECKED");  // the first turn was not aborted: its answer arrived
}

void CrewConversationE2eTest::scenario_full_crew_delays() {
  const std::vector<std::string> markers = {"FILL1-" + cli_, "FILL2-" + cli_, "FILL3-" + cli_};
  for (const auto& m : markers) model_->script_conversation(m, {MockAnswer::hang("DONE-" + m)});
  const std::string q = "WAITING-" + cli_ + ": are you there?";
  model_->script_conversation(q, {MockAnswer::tool(send_message("HERE AFTER ALL")), MockAnswer::reply("done")});
  make_talking_crew();
  std::vector<std::string> ids;
  for (const auto& m : markers) ids.push_back(start_call("api", "review", m));
  ASSERT_TRUE(wait_hanging(3)) << model_->describe();
  const json r = ask(q);  // accepted, never busy
  // It waits durably: the owner's view shows it waiting, and no turn of it reached the model.
  ASSERT_TRUE(testing::wait_until([&] { return crew_conversation().value("waiting", 0) == 1; }, 30s))
      << crew_conversation().dump();
  EXPECT_EQ(crew_conversation().value("turn", ""), "idle");
  EXPECT_TRUE(model_->main_turns_with(q).empty()) << model_->describe();
  model_->release_hangs();
  for (const auto& id : ids) wait_terminal(id, kTurnTimeout);
  wait_answer(r.at("inbox_id"), "HERE AFTER ALL");
}

void CrewConversationE2eTest::scenario_kill_mid_turn() {
  const std::string q1 = "CUT-" + cli_ + ": a question the crash cuts";
  model_->script_conversation(q1, {MockAnswer::hang(), MockAnswer::tool(send_message("AFTER THE CRASH")),
                                   MockAnswer::reply("done")});
  make_talking_crew();
  const json r1 = ask(q1);
  ASSERT_TRUE(wait_hanging(1)) << model_->describe();
  if (cli_ == "codex") {  // its thread id comes in its first events: wait until the server holds it
    ASSERT_TRUE(testing::wait_until([&] { return crew_conversation().value("turn", "") == "running"; }, 30s));
  }
  stop_server(false);  // SIGKILL, like a crash
  start_again_same_port();
  EXPECT_EQ(reply_state(r1.at("message_id")), "interrupted");
  EXPECT_EQ(crew_conversation().value("turn", ""), "idle");
  const std::string q2 = "NEXT-" + cli_ + ": still there?";
  send({{"inbox_id", r1.at("inbox_id")}, {"message", q2}});
  wait_answer(r1.at("inbox_id"), "AFTER THE CRASH");
  const auto next = model_->main_turns_with(q2);
  ASSERT_FALSE(next.empty()) << model_->describe();
  EXPECT_NE(next[0].conversation.find(q1), std::string::npos) << "the session continued: " << next[0].conversation;
  // Not given again as a new message (a session Claude had not written down yet is started afresh with a recap).
  EXPECT_EQ(next[0].last_user.find("[" + r1.at("message_id").get<std::string>() + " from"), std::string::npos)
      << next[0].last_user;
  EXPECT_EQ(reply_state(r1.at("message_id")), "interrupted");
}

// R-K2 with R-W1, R-W2: the Crew's agent schedules a wakeup from its turn; when it is due, a new turn of the same
// session starts in that conversation with the wakeup's note (nobody wrote a message), and it answers there. The
// person sees the wakeup as the Crew agent's, delivered once its turn ended.
void CrewConversationE2eTest::scenario_wakeup_prompts_the_conversation() {
  const std::string q1 = "LATER-" + cli_ + ": tell me when the nightly build is green";
  const std::string note = "WAKE-NOTE-" + cli_ + ": look at the nightly build";
  const ScriptedToolCall schedule = {"schedule_message_wakeup", [note](const ModelRequest&) {
                                       const auto in_seconds = static_cast<std::int64_t>(std::time(nullptr)) + 6;
                                       return json{{"at", utc_text(in_seconds)}, {"note", note}}.dump();
                                     }};
  model_->script_conversation(q1, {MockAnswer::tool(schedule), MockAnswer::tool(send_message("I WILL CHECK LATER")),
                                   MockAnswer::reply("scheduled"),
                                   MockAnswer::tool(send_message("THE BUILD IS GREEN")), MockAnswer::reply("done")});
  make_talking_crew();
  const json r1 = ask(q1);
  wait_answer(r1.at("inbox_id"), "I WILL CHECK LATER");
  wait_answer(r1.at("inbox_id"), "THE BUILD IS GREEN");
  // Only the wakeup's turn names it so (the scheduling turn's tool result echoes the note too).
  const auto woken = model_->wait_for_user_text("your own wakeup", 5s);
  ASSERT_TRUE(woken) << model_->describe();
  const auto& first_woken = *woken;
  EXPECT_NE(first_woken.last_user.find(note), std::string::npos) << first_woken.last_user;
  EXPECT_NE(first_woken.conversation.find(q1), std::string::npos) << "the same session: " << first_woken.conversation;
  json listed;
  ASSERT_TRUE(testing::wait_until(
      [&] {
        listed = cli_ok(owner(), {"wakeups", "list", "--agent", "crew:api"});
        return listed.at("wakeups").size() == 1 && listed.at("wakeups")[0].value("state", "") == "delivered";
      },
      30s))
      << listed.dump(2);
  EXPECT_EQ(listed.at("wakeups")[0].value("note", ""), note);
  EXPECT_EQ(crew_conversation().value("turns", 0), 2) << crew_conversation().dump();
}

// R-K2 with R-D4, R-D2: the Crew's agent calls a function from its turn and ends the turn; the call's outcome
// starts a new turn of the same session in that conversation, where it reads the result and answers. The call is
// the conversation's: the person sees the Crew's agent as its caller.
void CrewConversationE2eTest::scenario_a_call_outcome_prompts_the_conversation() {
  const std::string q1 = "CALLING-" + cli_ + ": is the build green?";
  const ScriptedToolCall call = {"call_function", [](const ModelRequest&) {
                                   return json{{"target", "api"}, {"function", "build_status"},
                                               {"arguments", json::object()}}.dump();
                                 }};
  model_->script_conversation(q1, {MockAnswer::tool(call), MockAnswer::tool(send_message("ASKED THE BUILD")),
                                   MockAnswer::reply("waiting for the outcome"),
                                   MockAnswer::tool(send_message("THE BUILD SAYS GREEN")), MockAnswer::reply("done")});
  make_talking_crew();
  const json r1 = ask(q1);
  wait_answer(r1.at("inbox_id"), "ASKED THE BUILD");
  wait_answer(r1.at("inbox_id"), "THE BUILD SAYS GREEN");
  const auto woken = model_->wait_for_user_text("the outcome of your call", 5s);
  ASSERT_TRUE(woken) << model_->describe();
  EXPECT_NE(woken->last_user.find("BUILD-GREEN-42"), std::string::npos) << "the outcome carries the answer: "
                                                                         << woken->last_user;
  EXPECT_NE(woken->conversation.find(q1), std::string::npos) << "the same session: " << woken->conversation;
  const json calls = http_json(owner_http(), "GET", "/v1/calls?limit=10", std::nullopt, 200);
  json made;
  for (const json& c : calls.at("calls"))
    if (c.value("function", "") == "build_status") made = c;
  ASSERT_FALSE(made.is_null()) << calls.dump(2);
  EXPECT_EQ(made.at("status"), "completed") << made.dump();
  EXPECT_EQ(made.at("caller").value("agent_name", ""), "crew:api") << made.dump();
  EXPECT_EQ(crew_conversation().value("turns", 0), 2) << crew_conversation().dump();
}

class CrewConversationClaudeE2eTest : public CrewConversationE2eTest {
 protected:
  CrewConversationClaudeE2eTest() : CrewConversationE2eTest("claude") {}
};
class CrewConversationCodexE2eTest : public CrewConversationE2eTest {
 protected:
  CrewConversationCodexE2eTest() : CrewConversationE2eTest("codex") {}
};

TEST_F(CrewConversationClaudeE2eTest, TheCrewsAgentAnswersThenResumesItsSession_RK1_RK2) {
  scenario_answers_then_resumes();
}
TEST_F(CrewConversationClaudeE2eTest, MessagesDuringATurnGoToTheNextTurnTogether_RK2) {
  scenario_messages_during_a_turn_wait_for_the_next();
}
TEST_F(CrewConversationClaudeE2eTest, AFullCrewDelaysATurnNeverRefusesIt_RK2) { scenario_full_crew_delays(); }
TEST_F(CrewConversationClaudeE2eTest, AKillMidTurnLeavesItInterruptedAndTheNextContinues_RK2) {
  scenario_kill_mid_turn();
}
TEST_F(CrewConversationClaudeE2eTest, AWakeupOfItsAgentPromptsTheSameConversation_RK2_RW1_RW2) {
  scenario_wakeup_prompts_the_conversation();
}

TEST_F(CrewConversationClaudeE2eTest, ACallOutcomePromptsTheSameConversation_RK2_RD4_RD2) {
  scenario_a_call_outcome_prompts_the_conversation();
}

TEST_F(CrewConversationCodexE2eTest, TheCrewsAgentAnswersThenResumesItsSession_RK1_RK2) {
  scenario_answers_then_resumes();
}
TEST_F(CrewConversationCodexE2eTest, MessagesDuringATurnGoToTheNextTurnTogether_RK2) {
  scenario_messages_during_a_turn_wait_for_the_next();
}
TEST_F(CrewConversationCodexE2eTest, AFullCrewDelaysATurnNeverRefusesIt_RK2) { scenario_full_crew_delays(); }
TEST_F(CrewConversationCodexE2eTest, AKillMidTurnLeavesItInterruptedAndTheNextContinues_RK2) {
  scenario_kill_mid_turn();
}

TEST_F(CrewConversationCodexE2eTest, AWakeupOfItsAgentPromptsTheSameConversation_RK2_RW1_RW2) {
  scenario_wakeup_prompts_the_conversation();
}

TEST_F(CrewConversationCodexE2eTest, ACallOutcomePromptsTheSameConversation_RK2_RD4_RD2) {
  scenario_a_call_outcome_prompts_the_conversation();
}

}  // namespace
}  // namespace agentworks::e2e
