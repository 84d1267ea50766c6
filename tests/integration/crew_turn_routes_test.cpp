// A Crew agent's turn routes (R-K2) against a scripted stand-in for `claude`, so every rule of the turn's secret is
// reached on purpose: the stand-in records the secret the server gave its turn and holds the turn open until the
// test opens its gate. With that secret the test is the turn: a retried send under one submission id is stored
// once (R-M2); its wakeups (R-W1) and function calls (R-D4) are its conversation's only; a call's outcome starts
// the conversation's next turn (R-D2); another conversation's path and an ended turn are refused. The real Claude
// Code and Codex take the same paths in tests/e2e/crew_conversation_e2e_test.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/crew_fixture.hpp"

namespace agentworks::testing {
namespace {

namespace fs = std::filesystem;

// Each turn appends "CONVERSATION TOKEN" to turns.log in the Crew folder (its working directory), then waits for
// gate/open there and ends with a clean result, as `claude -p --output-format stream-json` does.
const char* kFakeClaude = R"SH(#!/bin/sh
session=""
while [ $# -gt 0 ]; do
  case "$1" in --session-id|--resume) session="$2"; shift ;; esac
  shift
done
cat > /dev/null
echo "$AGENTWORKS_CONVERSATION_ID $AGENTWORKS_TURN_TOKEN" >> turns.log
printf '{"type":"system","subtype":"init","session_id":"%s","claude_code_version":"9.8.7","model":"fake"}\n' "$session"
while [ ! -e gate/open ]; do sleep 0.05; done
printf '{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"%s","num_turns":1}\n' "$session"
)SH";

struct Turn {
  std::string conversation_id;
  std::string token;
};

class CrewTurnRoutes : public CrewTest {
 protected:
  void SetUp() override {
    const auto bin = home_.path("fake-bin");
    fs::create_directories(bin);
    write_text(bin / "claude", kFakeClaude);
    fs::permissions(bin / "claude", fs::perms::owner_all);
    start_server({}, {{"AGENTWORKS_CLAUDE_BIN", (bin / "claude").string()}});
    const fs::path dir = make_crew_dir("api");
    write_functions(dir, json::array({function_decl("hello")}));
    write_script(dir, "tools/hello.sh", "echo HELLO-FROM-API");
    write_text(dir / ".agentworks" / "crew.json", R"({"agent": {"claude": {"instructions": "Answer about the api."}}})");
    ASSERT_EQ(register_crew(owner_http(), "api", dir).status, 201);
    register_agent(owner(), "worker");
    register_agent(owner(), "other");
  }

  json ask(const std::string& as, const std::string& text) {
    return http_json(owner_http(), "POST", "/v1/messages",
                     json{{"target", "crew:api"}, {"message", text}, {"agent_name", as}}.dump(), 201);
  }
  // The turns the stand-in has started so far, oldest first.
  std::vector<Turn> turns() {
    std::vector<Turn> out;
    std::ifstream in(crew_dir("api") / "turns.log");
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream words(line);
      Turn t;
      if (words >> t.conversation_id >> t.token) out.push_back(t);
    }
    return out;
  }
  Turn wait_turn(std::size_t n) {
    EXPECT_TRUE(wait_until([&] { return turns().size() >= n; }, std::chrono::seconds(30))) << "turn " << n;
    const auto all = turns();
    return all.size() >= n ? all[n - 1] : Turn{};
  }
  HttpClient as_turn(const Turn& t) const { return HttpClient(owner_http().base_url(), t.token); }
  static std::string path(const Turn& t, const std::string& rest) { return "/v1/turns/" + t.conversation_id + rest; }
  void end_turns() { write_text(crew_dir("api") / "gate" / "open", ""); }
};

// R-M2 for a Crew agent's send: the same submission id answers its first receipt (200), never a second message.
TEST_F(CrewTurnRoutes, ARetriedSendUnderOneSubmissionIdIsStoredOnce_RK2) {
  const json receipt = ask("worker", "Is v2 out?");
  const Turn t = wait_turn(1);
  ASSERT_EQ(t.conversation_id, receipt.at("conversation_id"));
  const HttpClient turn = as_turn(t);
  const std::string body = json{{"text", "Yes, since Monday."}, {"submission_id", "sub-answer-1"}}.dump();
  const HttpResponse first = turn.post(path(t, "/messages"), body);
  ASSERT_EQ(first.status, 201) << describe(first);
  const HttpResponse again = turn.post(path(t, "/messages"), body);
  ASSERT_EQ(again.status, 200) << describe(again);
  EXPECT_EQ(parse_json(again.body).at("message_id"), parse_json(first.body).at("message_id"));
  const HttpResponse other = turn.post(path(t, "/messages"),
                                       json{{"text", "Something else"}, {"submission_id", "sub-answer-1"}}.dump());
  EXPECT_EQ(other.status, 409) << describe(other);
  int answers = 0;
  const json page = read_inbox(owner(), receipt.at("inbox_id"));  // kept: a loop over a temporary's member dangles
  for (const json& m : page.at("messages")) answers += m.value("message", "") == "Yes, since Monday." ? 1 : 0;
  EXPECT_EQ(answers, 1) << page.dump(2);
  end_turns();
}

// R-W1, R-W5 for a Crew agent: its turn schedules, lists and cancels the wakeups of its own conversation, with the
// same checks as a chat's; the person sees them as crew:api's; another conversation's path refuses the secret.
TEST_F(CrewTurnRoutes, ATurnKeepsTheWakeupsOfItsOwnConversation_RK2_RW1_RW5) {
  ask("worker", "Check the nightly build later");
  const Turn t = wait_turn(1);
  const HttpClient turn = as_turn(t);
  const HttpResponse bad = turn.post(path(t, "/wakeups"), json{{"after_minutes", 0}, {"note", "x"}}.dump());
  EXPECT_EQ(bad.status, 400) << describe(bad);
  const HttpResponse made = turn.post(path(t, "/wakeups"), json{{"after_minutes", 30}, {"note", "nightly"}}.dump());
  ASSERT_EQ(made.status, 200) << describe(made);
  const std::string wakeup_id = parse_json(made.body).at("wakeup_id");
  const json listed = http_json(turn, "GET", path(t, "/wakeups"), std::nullopt, 200);
  ASSERT_EQ(listed.at("wakeups").size(), 1u) << listed.dump();
  EXPECT_EQ(listed.at("agent_name"), "crew:api");
  const json seen = cli_ok(owner(), {"wakeups", "list", "--agent", "crew:api"});
  ASSERT_EQ(seen.at("wakeups").size(), 1u) << seen.dump();
  EXPECT_EQ(seen.at("wakeups")[0].at("state"), "pending");

  // The other conversation's turn cannot see or cancel it, and this secret does not open that conversation.
  ask("other", "A second conversation");
  const Turn t2 = wait_turn(2);
  ASSERT_NE(t2.conversation_id, t.conversation_id);
  EXPECT_TRUE(http_json(as_turn(t2), "GET", path(t2, "/wakeups"), std::nullopt, 200).at("wakeups").empty());
  EXPECT_EQ(as_turn(t2).post(path(t2, "/wakeups/" + wakeup_id + "/cancel"), "{}").status, 404);
  EXPECT_EQ(turn.get(path(t2, "/wakeups")).status, 401) << "one turn's secret, one conversation";

  const HttpResponse cancelled = turn.post(path(t, "/wakeups/" + wakeup_id + "/cancel"), "{}");
  ASSERT_EQ(cancelled.status, 200) << describe(cancelled);
  EXPECT_EQ(parse_json(cancelled.body).at("state"), "cancelled");
  end_turns();
  // Its turn ended: the secret opens nothing any more.
  ASSERT_TRUE(wait_until([&] { return turn.get(path(t, "/wakeups")).status == 401; }, std::chrono::seconds(30)));
}

// R-D4, R-D2 for a Crew agent: its turn calls a function of a Crew its Crew may call and reads that call, never
// another's; the call's outcome starts the conversation's next turn.
TEST_F(CrewTurnRoutes, ATurnsCallIsItsConversationsAndItsOutcomeStartsTheNextTurn_RK2_RD4_RD2) {
  const std::string person_call = call_ok("api", "hello").at("call_id");
  const json receipt = ask("worker", "Say hello through the api");
  const Turn t = wait_turn(1);
  const HttpClient turn = as_turn(t);
  const json listed = http_json(turn, "GET", path(t, "/crews/api/functions"), std::nullopt, 200);
  EXPECT_EQ(listed.at("functions").size(), 1u) << listed.dump();
  const HttpResponse wrong_notify = turn.post(
      path(t, "/crews/api/calls"),
      json{{"function", "hello"}, {"arguments", json::object()}, {"notify", "agent:worker"}}.dump());
  EXPECT_EQ(wrong_notify.status, 400) << describe(wrong_notify);
  const HttpResponse made =
      turn.post(path(t, "/crews/api/calls"), json{{"function", "hello"}, {"arguments", json::object()}}.dump());
  ASSERT_EQ(made.status, 201) << describe(made);
  const json call = parse_json(made.body);
  const std::string call_id = call.at("call_id");
  EXPECT_EQ(call.at("caller").at("agent_name"), "crew:api") << call.dump();
  EXPECT_EQ(http_json(turn, "GET", path(t, "/calls/" + call_id), std::nullopt, 200).at("call_id"), call_id);
  EXPECT_EQ(turn.get(path(t, "/calls/" + person_call)).status, 404) << "the person's call is not the turn's";
  EXPECT_EQ(wait_terminal(call_id).at("status"), "completed");
  const CliResult listed_calls = owner().run({"functions", "calls"});
  EXPECT_NE(listed_calls.out.find("  by crew:api\n"), std::string::npos) << listed_calls.describe();

  // It said something, so its end asks nothing again (R-X3): the next turn is the outcome's.
  ASSERT_EQ(turn.post(path(t, "/messages"), json{{"text", "Asked the api; back soon."}}.dump()).status, 201);
  end_turns();  // the stand-in leaves the gate open: the next turn ends at once
  const Turn next = wait_turn(2);
  EXPECT_EQ(next.conversation_id, t.conversation_id) << "the outcome woke the same conversation";
  EXPECT_NE(next.token, t.token);
  json state;
  ASSERT_TRUE(wait_until(
      [&] {
        state = http_json(owner_http(), "GET", "/v1/agents/crew:api/state", std::nullopt, 200);
        for (const json& inbox : state.at("inboxes"))
          for (const json& d : inbox.at("deliveries"))
            if (d.at("kind") == "call_outcome" && d.at("state") == "processed") return true;
        return false;
      },
      std::chrono::seconds(30)))
      << state.dump(2);
  EXPECT_EQ(receipt.at("conversation_id"), t.conversation_id);
}

}  // namespace
}  // namespace agentworks::testing
