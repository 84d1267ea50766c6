// `agentworks mcp serve --full` driven by the official MCP SDK client (tests/mcp/driver.mjs) against a real
// agentworks-server, as the person's login in a temp HOME: the three tools with strict schemas, a function call
// followed to its outcome with action=status (R-F1, R-F3), file pages (R-F4), a question answered with action=reply,
// the message routes, and every failure a tool error carrying the stable code. No bridge runs: --full never needs
// one.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <set>

#include "support/mcp_driver.hpp"
#include "support/crew_folder.hpp"
#include "support/messaging_fixture.hpp"
#include "testing/binaries.hpp"
#include "testing/wait.hpp"

namespace agentworks::testing {
namespace {

namespace fs = std::filesystem;

class McpFullTest : public MessagingTest {
 protected:
  void SetUp() override {
    const auto missing = mcp_client_missing();
    ASSERT_TRUE(missing.empty()) << missing;
    start_server();
    crew_ = std::make_unique<CrewFolder>(fs::weakly_canonical(home_.path("crew-api")));
    declare_client_functions(*crew_, cli_binary());
    cli_ok(owner(), {"crews", "register", "api", "--dir", crew_->dir().string()});
    driver_ = std::make_unique<McpDriver>(home_.env(), home_.path("mcp-full-driver.err"));
    driver_->start({cli_binary(), "mcp", "serve", "--full"});
  }
  void TearDown() override {
    if (HasFailure() && driver_) std::cerr << "=== MCP driver stderr ===\n" << driver_->stderr_text() << "\n";
    driver_.reset();
    MessagingTest::TearDown();
  }

  json tool(const std::string& name, const json& args) {
    const json answer = driver_->call(name, args);
    if (!answer.value("ok", false)) throw std::runtime_error(name + " failed at the protocol level: " + answer.dump());
    return answer["result"];
  }
  json tool_ok(const std::string& name, const json& args) {
    const json r = tool(name, args);
    if (r.value("isError", false))
      throw std::runtime_error(name + " " + args.dump() + " answered isError: " + r.dump());
    return r;
  }
  // The stable code of a tool error (fails the test when the call succeeded).
  std::string tool_error(const std::string& name, const json& args) {
    const json r = tool(name, args);
    EXPECT_TRUE(r.value("isError", false)) << r.dump();
    return r["structuredContent"]["error"].value("code", "");
  }

  // R-F3: polls action=status with wait_seconds and the cursors it last saw until a terminal status.
  json follow(const std::string& call_id) {
    json after = -1;
    json after_event = -1;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < deadline) {
      const json call = tool_ok("functions", {{"action", "status"},
                                              {"call_id", call_id},
                                              {"after", after},
                                              {"after_event", after_event},
                                              {"wait_seconds", 5}})["structuredContent"];
      const std::string status = call.value("status", "");
      if (status == "completed" || status == "failed" || status == "cancelled" || status == "interrupted")
        return call;
      if (call.contains("next_after")) after = call["next_after"];
      if (call.contains("next_after_event")) after_event = call["next_after_event"];
    }
    throw std::runtime_error("call " + call_id + " did not finish");
  }

  std::unique_ptr<CrewFolder> crew_;
  std::unique_ptr<McpDriver> driver_;
};

// The full connection lists exactly functions, messages and help, each with a strict object schema.
TEST_F(McpFullTest, ListsThreeToolsWithStrictSchemas) {
  const json tools = driver_->ok({{"op", "list"}})["tools"];
  std::set<std::string> names;
  for (const auto& t : tools) {
    names.insert(t["name"].get<std::string>());
    EXPECT_EQ(t["inputSchema"]["type"], "object") << t.dump();
    EXPECT_EQ(t["inputSchema"]["additionalProperties"], false) << t.dump();
    EXPECT_EQ(t["inputSchema"]["required"], json::array({"action"})) << t.dump();
    EXPECT_TRUE(t["inputSchema"]["properties"]["action"].contains("enum")) << t.dump();
  }
  EXPECT_EQ(names, (std::set<std::string>{"functions", "messages", "help"}));
  const json help = tool_ok("help", {{"action", "context"}});
  EXPECT_NE(text_of(help).find("completed, failed, cancelled or interrupted"), std::string::npos) << text_of(help);
  EXPECT_NE(text_of(help).find("not completion"), std::string::npos) << text_of(help);
}

// R-F1, R-F3: list, call (accepted, call_id), follow with status until the outcome; a repeated submission_id
// answers the same call.
TEST_F(McpFullTest, CallIsFollowedWithStatusUntilItsOutcome_RF1_RF3) {
  const json list = tool_ok("functions", {{"action", "list"}, {"target", "api"}})["structuredContent"];
  EXPECT_EQ(list["crew_name"], "api");
  EXPECT_EQ(list["functions"].size(), 4u);
  const json args = {{"action", "call"},
                     {"target", "api"},
                     {"function", "progress"},
                     {"arguments", {{"text", "x"}}},
                     {"submission_id", "mcp-sub-1"}};
  const json accepted = tool_ok("functions", args);
  const json call = accepted["structuredContent"];
  EXPECT_EQ(call["accepted"], true) << call.dump();
  const std::string id = call["call_id"];
  EXPECT_EQ(tool_ok("functions", args)["structuredContent"]["call_id"], id);
  const json done = follow(id);
  EXPECT_EQ(done["status"], "completed") << done.dump();
  EXPECT_EQ(done["answer"], "done");  // stdout without its last newline
  const json page = tool_ok("functions", {{"action", "status"}, {"call_id", id}, {"after", -1}, {"message_limit", 2}});
  EXPECT_EQ(page["structuredContent"]["messages"].size(), 2u) << page.dump();
  EXPECT_NE(text_of(page).find("(finished)"), std::string::npos) << text_of(page);
  // wait_seconds over 25 is capped, not refused.
  EXPECT_FALSE(tool("functions", {{"action", "status"}, {"call_id", id}, {"wait_seconds", 90}}).value("isError", true));
}

// R-F4: read pages a text file as content and a binary one as content_base64 with next_offset.
TEST_F(McpFullTest, ReadPagesTheCallsFiles_RF4) {
  const std::string id = tool_ok("functions", {{"action", "call"},
                                               {"target", "api"},
                                               {"function", "files"},
                                               {"arguments", {{"text", "x"}}},
                                               {"wait_seconds", 25}})["structuredContent"]["call_id"];
  ASSERT_EQ(follow(id)["status"], "completed");
  const json text = tool_ok("functions", {{"action", "read"}, {"call_id", id}, {"file", "report.txt"}});
  EXPECT_EQ(text["structuredContent"]["content"], "hello files\n");
  EXPECT_NE(text_of(text).find("hello files"), std::string::npos);
  const json blob = tool_ok("functions", {{"action", "read"},
                                          {"call_id", id},
                                          {"file", "blob.bin"},
                                          {"offset", 96},
                                          {"limit", 1000}})["structuredContent"];
  EXPECT_TRUE(blob.contains("content_base64")) << blob.dump().substr(0, 200);
  EXPECT_EQ(blob["next_offset"], 1096);
  EXPECT_EQ(tool_error("functions", {{"action", "read"}, {"call_id", id}, {"file", "../../tools/echo.sh"}}),
            "bad_request");
}

// A question from the execution shows in pending_inputs (waiting_input is not an outcome); reply answers it.
TEST_F(McpFullTest, ReplyAnswersTheExecutionsQuestion_RF1_RF3) {
  const std::string id = tool_ok("functions", {{"action", "call"},
                                               {"target", "api"},
                                               {"function", "ask"},
                                               {"arguments", {{"text", "x"}}}})["structuredContent"]["call_id"];
  json status;
  ASSERT_TRUE(wait_until(
      [&] {
        status = tool_ok("functions", {{"action", "status"}, {"call_id", id}, {"wait_seconds", 2}});
        return !status["structuredContent"].value("pending_inputs", json::array()).empty();
      },
      std::chrono::seconds(30), std::chrono::milliseconds(50)));
  EXPECT_EQ(status["structuredContent"]["status"], "waiting_input");
  EXPECT_NE(text_of(status).find("(not finished)"), std::string::npos) << text_of(status);
  const std::string request = status["structuredContent"]["pending_inputs"][0]["request_id"];
  EXPECT_NE(text_of(status).find("request_id=" + request), std::string::npos) << text_of(status);
  tool_ok("functions", {{"action", "reply"}, {"call_id", id}, {"request_id", request}, {"answer", "main"}});
  const json done = follow(id);
  EXPECT_EQ(done["answer"], "branch: main") << done.dump();  // stdout without its last newline
  for (const json& n : driver_->notifications())
    EXPECT_NE(n.value("method", ""), "elicitation/create") << "this client did not advertise elicitation";
}

// R-D3: action=cancel ends a waiting call (wait_seconds waits for its end) and says so; a second cancel of the
// ended call changes nothing; a call_id the login may not see is not_found.
TEST_F(McpFullTest, CancelEndsTheCallAndSaysSo_R_D3) {
  const std::string id = tool_ok("functions", {{"action", "call"},
                                               {"target", "api"},
                                               {"function", "ask"},
                                               {"arguments", {{"text", "x"}}}})["structuredContent"]["call_id"];
  ASSERT_TRUE(wait_until(
      [&] {
        const json s = tool_ok("functions", {{"action", "status"}, {"call_id", id}, {"wait_seconds", 2}});
        return !s["structuredContent"].value("pending_inputs", json::array()).empty();
      },
      std::chrono::seconds(30), std::chrono::milliseconds(50)));
  const json ended = tool_ok("functions", {{"action", "cancel"}, {"call_id", id}, {"wait_seconds", 25}});
  EXPECT_EQ(ended["structuredContent"]["status"], "cancelled") << ended.dump();
  EXPECT_EQ(ended["structuredContent"]["cancel"], "cancelled") << ended.dump();
  EXPECT_EQ(text_of(ended).rfind("cancelled", 0), 0u) << text_of(ended);
  EXPECT_EQ(follow(id)["status"], "cancelled");
  const json again = tool_ok("functions", {{"action", "cancel"}, {"call_id", id}});
  EXPECT_EQ(again["structuredContent"]["cancel"], "cancelled") << again.dump();
  EXPECT_EQ(tool_error("functions", {{"action", "cancel"}, {"call_id", "call_unknown"}}), "not_found");
  EXPECT_EQ(tool_error("functions", {{"action", "cancel"}, {"call_id", id}, {"answer", "x"}}), "bad_request");
}

// R-F3: a client that advertises elicitation gets the pending question as an elicitation/create request while it
// follows the call with status; accepting it answers the call. A declined one stays pending and is not asked again.
TEST_F(McpFullTest, ElicitationAnswersTheExecutionsQuestion_RF3) {
  for (const std::string action : {"decline", "accept"}) {
    SCOPED_TRACE(action);
    driver_.reset();
    driver_ = std::make_unique<McpDriver>(home_.env(), home_.path("mcp-full-elicit-" + action + ".err"));
    json reply = {{"action", action}};
    if (action == "accept") reply["content"] = {{"answer", "main"}};
    driver_->start({cli_binary(), "mcp", "serve", "--full"}, nullptr, reply);
    const std::string id = tool_ok("functions", {{"action", "call"},
                                                 {"target", "api"},
                                                 {"function", "ask"},
                                                 {"arguments", {{"text", "x"}}}})["structuredContent"]["call_id"];
    std::optional<json> elicitation;
    ASSERT_TRUE(wait_until(
        [&] {
          tool_ok("functions", {{"action", "status"}, {"call_id", id}, {"wait_seconds", 2}});
          for (const json& n : driver_->notifications())
            if (n.value("method", "") == "elicitation/create") elicitation = n;
          return elicitation.has_value();
        },
        std::chrono::seconds(30), std::chrono::milliseconds(50)));
    EXPECT_EQ((*elicitation)["params"]["message"], "Which branch?") << elicitation->dump();
    EXPECT_EQ((*elicitation)["params"]["requestedSchema"]["required"], json::array({"answer"})) << elicitation->dump();
    if (action == "accept") {
      const json done = follow(id);
      EXPECT_EQ(done["answer"], "branch: main") << done.dump();
      continue;
    }
    const json still = tool_ok("functions", {{"action", "status"}, {"call_id", id}})["structuredContent"];
    EXPECT_EQ(still["status"], "waiting_input") << still.dump();
    std::size_t asked = 0;
    for (const json& n : driver_->notifications())
      if (n.value("method", "") == "elicitation/create") ++asked;
    EXPECT_EQ(asked, 1u) << "a declined question is not asked again";
    tool_ok("functions", {{"action", "reply"}, {"call_id", id},
                          {"request_id", still["pending_inputs"][0]["request_id"]}, {"answer", "dev"}});
    EXPECT_EQ(follow(id)["answer"], "branch: dev");
  }
}

// R-F1: every failure is a tool error with the stable code; the schema's strictness is enforced per action.
TEST_F(McpFullTest, FailuresAreToolErrorsWithTheStableCode_RF1) {
  EXPECT_EQ(tool_error("functions",
                       {{"action", "call"}, {"target", "api"}, {"function", "echo"}, {"arguments", {{"text", 5}}}}),
            "invalid_input");
  EXPECT_EQ(tool_error("functions", {{"action", "list"}, {"target", "nope"}}), "not_found");
  EXPECT_EQ(tool_error("functions", {{"action", "status"}, {"call_id", "call_unknown"}}), "not_found");
  EXPECT_EQ(tool_error("functions", {{"action", "list"}, {"target", "api"}, {"file", "x"}}), "bad_request");
  EXPECT_EQ(tool_error("functions", {{"action", "launch"}}), "bad_request");
  EXPECT_EQ(tool_error("functions", {{"action", "call"}, {"target", "api"}, {"function", "echo"}}), "bad_request");
  EXPECT_EQ(tool_error("messages", {{"action", "send"}, {"target", "agent:-bad"}, {"message", "x"}}), "invalid_name");
  EXPECT_EQ(tool_error("messages", {{"action", "state"}, {"message_id", "msg_unknown"}}), "not_found");
  const fs::path calls = crew_->dir() / ".calls";
  EXPECT_TRUE(!fs::exists(calls) || fs::is_empty(calls));
}

// The messages tool maps onto the server's message routes as the person's login.
TEST_F(McpFullTest, MessagesToolRegistersSendsReadsAndShowsState) {
  tool_ok("messages", {{"action", "register"}, {"agent_name", "reviewer"}, {"purpose", "Reviews"}});
  tool_ok("messages", {{"action", "register"}, {"agent_name", "worker"}});
  const json agents = tool_ok("messages", {{"action", "list_agents"}})["structuredContent"];
  EXPECT_EQ(agents["agents"].size(), 2u) << agents.dump();
  const json receipt = tool_ok("messages", {{"action", "send"},
                                            {"agent_name", "worker"},
                                            {"target", "agent:reviewer"},
                                            {"message", "ready"}})["structuredContent"];
  const std::string message_id = receipt["message_id"];
  const json page =
      tool_ok("messages", {{"action", "read"}, {"agent_name", "reviewer"}, {"after", "0"}})["structuredContent"];
  ASSERT_EQ(page["messages"].size(), 1u) << page.dump();
  EXPECT_EQ(page["messages"][0]["message"], "ready");
  const json state = tool_ok("messages", {{"action", "state"}, {"message_id", message_id}})["structuredContent"];
  EXPECT_EQ(state["message_id"], message_id);
  EXPECT_TRUE(state["delivery"].contains("state")) << state.dump();
  EXPECT_EQ(state["delivery"]["reply_state"], "pending") << state.dump();
  // The owner's view of an agent: its inboxes and their last deliveries, no bodies.
  const json view = tool_ok("messages", {{"action", "state"}, {"agent_name", "reviewer"}})["structuredContent"];
  ASSERT_EQ(view["inboxes"].size(), 1u) << view.dump();
  EXPECT_EQ(view["inboxes"][0]["deliveries"][0]["message_id"], message_id);
  EXPECT_EQ(view.dump().find("ready"), std::string::npos) << view.dump();
  EXPECT_EQ(tool_error("messages", {{"action", "state"}, {"agent_name", "reviewer"}, {"message_id", message_id}}),
            "bad_request");

  // R-W1 R-W5: the person's side of an agent's wakeups; the owner's view shows them beside the deliveries.
  const json wakeup = tool_ok("messages", {{"action", "wakeup_schedule"}, {"agent_name", "reviewer"},
                                           {"after_minutes", 20}, {"note", "look again"}})["structuredContent"];
  const std::string wakeup_id = wakeup["wakeup_id"];
  EXPECT_EQ(wakeup["state"], "pending");
  EXPECT_EQ(tool_error("messages", {{"action", "wakeup_schedule"}, {"agent_name", "reviewer"}, {"note", "n"}}),
            "bad_request");
  EXPECT_EQ(tool_error("messages", {{"action", "wakeup_list"}, {"agent_name", "reviewer"}, {"note", "n"}}),
            "bad_request");
  const json with_wakeup =
      tool_ok("messages", {{"action", "state"}, {"agent_name", "reviewer"}})["structuredContent"];
  ASSERT_EQ(with_wakeup["wakeups"].size(), 1u) << with_wakeup.dump();
  EXPECT_EQ(with_wakeup["wakeups"][0]["wakeup_id"], wakeup_id);
  EXPECT_EQ(tool_ok("messages", {{"action", "wakeup_cancel"}, {"agent_name", "reviewer"}, {"wakeup_id", wakeup_id}})
                ["structuredContent"]["state"],
            "cancelled");
  EXPECT_EQ(tool_ok("messages", {{"action", "wakeup_list"}, {"agent_name", "reviewer"}})["structuredContent"]
                ["wakeups"][0]["state"],
            "cancelled");
}

}  // namespace
}  // namespace agentworks::testing
