// `agentworks mcp serve --full` driven by the official MCP SDK client (tests/mcp/driver.mjs) against a real
// agentworks-server, as the person's login in a temp HOME: one flat tool per action with its own input and output
// schemas, a function call followed to its outcome with functions_status (R-F1, R-F3), file pages (R-F4), a question
// answered with functions_reply,
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
    start_driver("mcp-full-driver.err");
  }
  // The SDK client checks a tool's structuredContent against its outputSchema only after it listed the tools: list
  // them first, so every call below is checked (a mismatch fails the call at the protocol level).
  void start_driver(const std::string& log, const json& elicit_reply = nullptr) {
    driver_ = std::make_unique<McpDriver>(home_.env(), home_.path(log));
    driver_->start({cli_binary(), "mcp", "serve", "--full"}, nullptr, elicit_reply);
    driver_->ok({{"op", "list"}});
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

  // R-F3: polls functions_status with wait_seconds and the cursors it last saw until a terminal status.
  json follow(const std::string& call_id) {
    json after = -1;
    json after_event = -1;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < deadline) {
      const json call = tool_ok("functions_status", {{"call_id", call_id},
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

// The full connection lists one flat tool per action, each with a strict object schema of its own fields and its
// own `required` (no oneOf/anyOf/allOf at the top, which model APIs refuse), and an output schema wherever its
// result is structured (functions_call's may be a task, whose result is text). The SDK client checks every
// structuredContent below against these output schemas: a mismatch fails the call.
TEST_F(McpFullTest, ListsOneFlatToolPerActionWithItsOwnSchemas) {
  const json tools = driver_->ok({{"op", "list"}})["tools"];
  std::set<std::string> names;
  for (const auto& t : tools) {
    const std::string name = t["name"];
    names.insert(name);
    const json& in = t["inputSchema"];
    EXPECT_EQ(in["type"], "object") << t.dump();
    EXPECT_EQ(in["additionalProperties"], false) << t.dump();
    for (const char* combinator : {"oneOf", "anyOf", "allOf", "if", "then"})
      EXPECT_FALSE(in.contains(combinator)) << t.dump();
    EXPECT_FALSE(in["properties"].contains("action")) << t.dump();
    for (const auto& r : in.value("required", json::array()))
      EXPECT_TRUE(in["properties"].contains(r.get<std::string>())) << name << " requires an undeclared " << r;
    if (name == "functions_call") {
      EXPECT_FALSE(t.contains("outputSchema")) << t.dump();
    } else {
      EXPECT_EQ(t["outputSchema"]["type"], "object") << t.dump();
    }
  }
  EXPECT_EQ(names, (std::set<std::string>{"functions_list", "functions_call", "functions_status", "functions_read",
                                          "functions_reply", "functions_cancel", "messages_send", "messages_ask_crew",
                                          "messages_read", "messages_receipt", "agents_state", "agents_register",
                                          "agents_list", "wakeups_schedule", "wakeups_cancel", "wakeups_list",
                                          "help"}));
  const auto required_of = [&](const std::string& name) {
    for (const auto& t : tools)
      if (t["name"] == name) return t["inputSchema"].value("required", json::array());
    return json();
  };
  EXPECT_EQ(required_of("functions_call"), json::array({"target", "function", "arguments"}));
  EXPECT_EQ(required_of("functions_reply"), json::array({"call_id", "request_id", "answer"}));
  EXPECT_EQ(required_of("wakeups_schedule"), json::array({"agent_name", "note"}));
  const json help = tool_ok("help", json::object());
  EXPECT_NE(text_of(help).find("completed, failed, cancelled or interrupted"), std::string::npos) << text_of(help);
  EXPECT_NE(text_of(help).find("not completion"), std::string::npos) << text_of(help);
}

// R-F1, R-F3: list, call (accepted, call_id), follow with status until the outcome; a repeated submission_id
// answers the same call.
TEST_F(McpFullTest, CallIsFollowedWithStatusUntilItsOutcome_RF1_RF3) {
  const json list = tool_ok("functions_list", {{"target", "api"}})["structuredContent"];
  EXPECT_EQ(list["crew_name"], "api");
  EXPECT_EQ(list["functions"].size(), 4u);
  const json args = {{"target", "api"},
                     {"function", "progress"},
                     {"arguments", {{"text", "x"}}},
                     {"submission_id", "mcp-sub-1"}};
  const json accepted = tool_ok("functions_call", args);
  const json call = accepted["structuredContent"];
  EXPECT_EQ(call["accepted"], true) << call.dump();
  const std::string id = call["call_id"];
  EXPECT_EQ(tool_ok("functions_call", args)["structuredContent"]["call_id"], id);
  const json done = follow(id);
  EXPECT_EQ(done["status"], "completed") << done.dump();
  EXPECT_EQ(done["answer"], "done");  // stdout without its last newline
  const json page = tool_ok("functions_status", {{"call_id", id}, {"after", -1}, {"message_limit", 2}});
  EXPECT_EQ(page["structuredContent"]["messages"].size(), 2u) << page.dump();
  EXPECT_NE(text_of(page).find("(finished)"), std::string::npos) << text_of(page);
  // wait_seconds over 25 is capped, not refused.
  EXPECT_FALSE(tool("functions_status", {{"call_id", id}, {"wait_seconds", 90}}).value("isError", true));
}

// R-F4: read pages a text file as content and a binary one as content_base64 with next_offset.
TEST_F(McpFullTest, ReadPagesTheCallsFiles_RF4) {
  const std::string id = tool_ok("functions_call", {{"target", "api"},
                                               {"function", "files"},
                                               {"arguments", {{"text", "x"}}},
                                               {"wait_seconds", 25}})["structuredContent"]["call_id"];
  ASSERT_EQ(follow(id)["status"], "completed");
  const json text = tool_ok("functions_read", {{"call_id", id}, {"file", "report.txt"}});
  EXPECT_EQ(text["structuredContent"]["content"], "hello files\n");
  EXPECT_NE(text_of(text).find("hello files"), std::string::npos);
  const json blob = tool_ok("functions_read", {{"call_id", id},
                                          {"file", "blob.bin"},
                                          {"offset", 96},
                                          {"limit", 1000}})["structuredContent"];
  EXPECT_TRUE(blob.contains("content_base64")) << blob.dump().substr(0, 200);
  EXPECT_EQ(blob["next_offset"], 1096);
  EXPECT_EQ(tool_error("functions_read", {{"call_id", id}, {"file", "../../tools/echo.sh"}}),
            "bad_request");
}

// A question from the execution shows in pending_inputs (waiting_input is not an outcome); reply answers it.
TEST_F(McpFullTest, ReplyAnswersTheExecutionsQuestion_RF1_RF3) {
  const std::string id = tool_ok("functions_call", {{"target", "api"},
                                               {"function", "ask"},
                                               {"arguments", {{"text", "x"}}}})["structuredContent"]["call_id"];
  json status;
  ASSERT_TRUE(wait_until(
      [&] {
        status = tool_ok("functions_status", {{"call_id", id}, {"wait_seconds", 2}});
        return !status["structuredContent"].value("pending_inputs", json::array()).empty();
      },
      std::chrono::seconds(30), std::chrono::milliseconds(50)));
  EXPECT_EQ(status["structuredContent"]["status"], "waiting_input");
  EXPECT_NE(text_of(status).find("(not finished)"), std::string::npos) << text_of(status);
  const std::string request = status["structuredContent"]["pending_inputs"][0]["request_id"];
  EXPECT_NE(text_of(status).find("request_id=" + request), std::string::npos) << text_of(status);
  tool_ok("functions_reply", {{"call_id", id}, {"request_id", request}, {"answer", "main"}});
  const json done = follow(id);
  EXPECT_EQ(done["answer"], "branch: main") << done.dump();  // stdout without its last newline
  for (const json& n : driver_->notifications())
    EXPECT_NE(n.value("method", ""), "elicitation/create") << "this client did not advertise elicitation";
}

// R-D3: functions_cancel ends a waiting call (wait_seconds waits for its end) and says so; a second cancel of the
// ended call changes nothing; a call_id the login may not see is not_found.
TEST_F(McpFullTest, CancelEndsTheCallAndSaysSo_R_D3) {
  const std::string id = tool_ok("functions_call", {{"target", "api"},
                                               {"function", "ask"},
                                               {"arguments", {{"text", "x"}}}})["structuredContent"]["call_id"];
  ASSERT_TRUE(wait_until(
      [&] {
        const json s = tool_ok("functions_status", {{"call_id", id}, {"wait_seconds", 2}});
        return !s["structuredContent"].value("pending_inputs", json::array()).empty();
      },
      std::chrono::seconds(30), std::chrono::milliseconds(50)));
  const json ended = tool_ok("functions_cancel", {{"call_id", id}, {"wait_seconds", 25}});
  EXPECT_EQ(ended["structuredContent"]["status"], "cancelled") << ended.dump();
  EXPECT_EQ(ended["structuredContent"]["cancel"], "cancelled") << ended.dump();
  EXPECT_EQ(text_of(ended).rfind("cancelled", 0), 0u) << text_of(ended);
  EXPECT_EQ(follow(id)["status"], "cancelled");
  const json again = tool_ok("functions_cancel", {{"call_id", id}});
  EXPECT_EQ(again["structuredContent"]["cancel"], "cancelled") << again.dump();
  EXPECT_EQ(tool_error("functions_cancel", {{"call_id", "call_unknown"}}), "not_found");
  EXPECT_EQ(tool_error("functions_cancel", {{"call_id", id}, {"answer", "x"}}), "bad_request");
}

// R-F3: a client that advertises elicitation gets the pending question as an elicitation/create request while it
// follows the call with status; accepting it answers the call. A declined one stays pending and is not asked again.
TEST_F(McpFullTest, ElicitationAnswersTheExecutionsQuestion_RF3) {
  for (const std::string action : {"decline", "accept"}) {
    SCOPED_TRACE(action);
    driver_.reset();
    json reply = {{"action", action}};
    if (action == "accept") reply["content"] = {{"answer", "main"}};
    start_driver("mcp-full-elicit-" + action + ".err", reply);
    const std::string id = tool_ok("functions_call", {{"target", "api"},
                                                 {"function", "ask"},
                                                 {"arguments", {{"text", "x"}}}})["structuredContent"]["call_id"];
    std::optional<json> elicitation;
    ASSERT_TRUE(wait_until(
        [&] {
          tool_ok("functions_status", {{"call_id", id}, {"wait_seconds", 2}});
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
    const json still = tool_ok("functions_status", {{"call_id", id}})["structuredContent"];
    EXPECT_EQ(still["status"], "waiting_input") << still.dump();
    std::size_t asked = 0;
    for (const json& n : driver_->notifications())
      if (n.value("method", "") == "elicitation/create") ++asked;
    EXPECT_EQ(asked, 1u) << "a declined question is not asked again";
    tool_ok("functions_reply", {{"call_id", id},
                          {"request_id", still["pending_inputs"][0]["request_id"]}, {"answer", "dev"}});
    EXPECT_EQ(follow(id)["answer"], "branch: dev");
  }
}

// R-F1: every failure is a tool error with the stable code; each tool's schema is enforced (an argument of another
// tool, or the old `action` field, is bad_request).
TEST_F(McpFullTest, FailuresAreToolErrorsWithTheStableCode_RF1) {
  EXPECT_EQ(tool_error("functions_call", {{"target", "api"}, {"function", "echo"}, {"arguments", {{"text", 5}}}}),
            "invalid_input");
  EXPECT_EQ(tool_error("functions_list", {{"target", "nope"}}), "not_found");
  EXPECT_EQ(tool_error("functions_status", {{"call_id", "call_unknown"}}), "not_found");
  EXPECT_EQ(tool_error("functions_list", {{"target", "api"}, {"file", "x"}}), "bad_request");
  const json unknown = driver_->call("functions_launch", json::object());
  EXPECT_FALSE(unknown.value("ok", true)) << "an unknown tool is a protocol error: " << unknown.dump();
  EXPECT_EQ(tool_error("functions_status", {{"call_id", "call_unknown"}, {"action", "status"}}), "bad_request");
  EXPECT_EQ(tool_error("functions_call", {{"target", "api"}, {"function", "echo"}}), "bad_request");
  EXPECT_EQ(tool_error("messages_send", {{"target", "agent:-bad"}, {"message", "x"}}), "invalid_name");
  EXPECT_EQ(tool_error("messages_receipt", {{"message_id", "msg_unknown"}}), "not_found");
  const fs::path calls = crew_->dir() / ".calls";
  EXPECT_TRUE(!fs::exists(calls) || fs::is_empty(calls));
}

// The messages_*, agents_* and wakeups_* tools map onto the server's routes as the person's login.
TEST_F(McpFullTest, MessagesToolRegistersSendsReadsAndShowsState) {
  tool_ok("agents_register", {{"agent_name", "reviewer"}, {"purpose", "Reviews"}});
  tool_ok("agents_register", {{"agent_name", "worker"}});
  const json agents = tool_ok("agents_list", json::object())["structuredContent"];
  EXPECT_EQ(agents["agents"].size(), 2u) << agents.dump();
  const json receipt = tool_ok("messages_send", {{"agent_name", "worker"},
                                            {"target", "agent:reviewer"},
                                            {"message", "ready"}})["structuredContent"];
  const std::string message_id = receipt["message_id"];
  const json page =
      tool_ok("messages_read", {{"agent_name", "reviewer"}, {"after", "0"}})["structuredContent"];
  ASSERT_EQ(page["messages"].size(), 1u) << page.dump();
  EXPECT_EQ(page["messages"][0]["message"], "ready");
  const json state = tool_ok("messages_receipt", {{"message_id", message_id}})["structuredContent"];
  EXPECT_EQ(state["message_id"], message_id);
  EXPECT_TRUE(state["delivery"].contains("state")) << state.dump();
  EXPECT_EQ(state["delivery"]["reply_state"], "pending") << state.dump();
  // The owner's view of an agent: its inboxes and their last deliveries, no bodies.
  const json view = tool_ok("agents_state", {{"agent_name", "reviewer"}})["structuredContent"];
  ASSERT_EQ(view["inboxes"].size(), 1u) << view.dump();
  EXPECT_EQ(view["inboxes"][0]["deliveries"][0]["message_id"], message_id);
  EXPECT_EQ(view.dump().find("ready"), std::string::npos) << view.dump();
  EXPECT_EQ(tool_error("agents_state", {{"agent_name", "reviewer"}, {"message_id", message_id}}), "bad_request");

  // R-W1 R-W5: the person's side of an agent's wakeups; the owner's view shows them beside the deliveries.
  const json wakeup = tool_ok("wakeups_schedule", {{"agent_name", "reviewer"},
                                           {"after_minutes", 20}, {"note", "look again"}})["structuredContent"];
  const std::string wakeup_id = wakeup["wakeup_id"];
  EXPECT_EQ(wakeup["state"], "pending");
  EXPECT_EQ(tool_error("wakeups_schedule", {{"agent_name", "reviewer"}, {"note", "n"}}),
            "bad_request");
  EXPECT_EQ(tool_error("wakeups_list", {{"agent_name", "reviewer"}, {"note", "n"}}),
            "bad_request");
  const json with_wakeup =
      tool_ok("agents_state", {{"agent_name", "reviewer"}})["structuredContent"];
  ASSERT_EQ(with_wakeup["wakeups"].size(), 1u) << with_wakeup.dump();
  EXPECT_EQ(with_wakeup["wakeups"][0]["wakeup_id"], wakeup_id);
  EXPECT_EQ(tool_ok("wakeups_cancel", {{"agent_name", "reviewer"}, {"wakeup_id", wakeup_id}})
                ["structuredContent"]["state"],
            "cancelled");
  EXPECT_EQ(tool_ok("wakeups_list", {{"agent_name", "reviewer"}})["structuredContent"]
                ["wakeups"][0]["state"],
            "cancelled");
}

}  // namespace
}  // namespace agentworks::testing
