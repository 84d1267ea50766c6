// Taking over a name through the real processes: agentworks-hook fed recorded provider payloads, a real
// agentworks-bridge and agentworks-server in a temp HOME, and the real `agentworks` CLI.
// - A typed attach of a name another connected chat holds changes nothing and says who holds it; `--take` moves
//   it, says who was detached; the losing chat is told at its next turn end and in its status (R-H4, R-H7).
//   Re-attaching a chat under a new name says the old one was released (R-H7).
// - `/agentworks resume` in a chat that never attached names this project's offline names (R-H11).
// - `agentworks status --agents` counts an offline chat's waiting messages on the server, or says it cannot
//   (never a false 0), and has column headers (R-H8).
// - `agentworks status` after `agentworks down` does not tell the person to run `agentworks status`.
#include <gtest/gtest.h>

#include "testing/bridge_client.hpp"
#include "testing/bridge_process.hpp"
#include "testing/temp_home.hpp"
#include "testing/binaries.hpp"
#include "testing/wait.hpp"
#include "support/bridge_fixture.hpp"
#include "support/hook_runner.hpp"

namespace agentworks::testing {
namespace {

class TakeoverTest : public BridgeTest {
 protected:
  void SetUp() override {
    start_server();
    register_agent(owner(), "worker");
    start_bridge();
  }

  ProcessResult hook(const std::string& provider, const std::string& event, const json& input) {
    return run_hook(home_, provider, event, input.dump());
  }
  // A typed prompt; the text the hook showed the person (the prompt is blocked from the model).
  std::string type(const std::string& provider, const std::string& session, const std::string& prompt,
                   const std::string& cwd = "") {
    json in = hook_payload(provider, "UserPromptSubmit", session, cwd);
    in["prompt"] = prompt;
    const auto r = hook(provider, "UserPromptSubmit", in);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    if (r.out.empty()) return "(no output)";
    const json out = json::parse(r.out);
    EXPECT_EQ(out.value("decision", ""), "block") << r.out;
    return out.value("reason", "");
  }
  // A Stop: the hook's output as JSON (null when it printed nothing).
  json stop(const std::string& provider, const std::string& session) {
    json in = hook_payload(provider, "Stop", session);
    in["stop_hook_active"] = false;
    const auto r = hook(provider, "Stop", in);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out.empty() ? json() : json::parse(r.out);
  }
};

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// R-H4, R-H7: a Claude chat typing `/agentworks attach cxagent` while a connected Codex chat holds
// it is told who holds it and how to take it; nothing moves. With --take the name moves, the answer says which
// chat was detached, and the Codex chat's next turn end tells its person (not its model) who took the name.
TEST_F(TakeoverTest, TakingANameHeldByAConnectedChatNeedsTakeAndTellsBothChats_RH4_RH7) {
  const std::string codex = "019ad2f0-1111-7000-8000-00000000c0de";
  const std::string claude = "7c1e2a90-2222-4000-8000-0000000c1a0d";
  // --no-native: the Codex route check would run this test program (the hook's provider ancestor) as `codex`.
  ASSERT_TRUE(has(type("codex", codex, "agentworks attach cxagent \"Codex work\" --no-native"),
                  "Attached this chat as cxagent"));
  ASSERT_TRUE(wait_connected(codex));

  const std::string asked = type("claude", claude, "/agentworks attach cxagent");
  EXPECT_TRUE(has(asked, "The name cxagent is held by a connected Codex chat (session 019ad2f0\u2026c0de, attached since "))
      << asked;
  EXPECT_TRUE(has(asked, "would detach that chat. Nothing changed")) << asked;
  EXPECT_TRUE(has(asked, "type `/agentworks attach cxagent --take`")) << asked;
  EXPECT_FALSE(lookup("claude", claude).value("attached", true));  // nothing moved
  EXPECT_EQ(lookup("codex", codex)["state"], "attached");
  EXPECT_TRUE(stop("codex", codex).is_null());  // the holder hears nothing yet

  const std::string taken = type("claude", claude, "/agentworks attach cxagent --take");
  EXPECT_TRUE(has(taken, "Attached this chat as cxagent")) << taken;
  EXPECT_TRUE(has(taken, "The name was held by a connected Codex chat (session 019ad2f0\u2026c0de")) << taken;
  EXPECT_TRUE(has(taken, "that chat is now detached from it and is told so at its next turn end.")) << taken;
  EXPECT_EQ(lookup("claude", claude)["state"], "attached");
  ASSERT_TRUE(wait_until([&] { return lookup("codex", codex).value("state", "") == "fenced"; },
                         std::chrono::seconds(20)));

  // The losing chat's next turn end: a message for the person (systemMessage), never a prompt for the model.
  const json told = stop("codex", codex);
  ASSERT_TRUE(told.is_object()) << "the losing chat was not told";
  EXPECT_FALSE(told.contains("decision")) << told.dump();
  const std::string notice = told.value("systemMessage", "");
  EXPECT_TRUE(has(notice, "this chat lost the name cxagent to a Claude chat (session 7c1e2a90\u20261a0d) at "))
      << notice;
  EXPECT_TRUE(has(notice, "`agentworks attach cxagent --take`")) << notice;
  EXPECT_TRUE(stop("codex", codex).is_null());  // told once
  // Its status keeps saying who took the name.
  EXPECT_TRUE(has(type("codex", codex, "agentworks status"), "lost the name cxagent to a Claude chat")) << notice;

  // The terminal's status says it too.
  const auto agents = owner().run({"status", "--agents"});
  EXPECT_TRUE(has(agents.out, "lost the name to a Claude chat (session 7c1e2a90\u20261a0d) at ")) << agents.out;

  // The Codex chat takes the name back the way its notice said.
  const std::string back = type("codex", codex, "agentworks attach cxagent --take --no-native");
  EXPECT_TRUE(has(back, "Attached this chat as cxagent")) << back;
  EXPECT_TRUE(has(back, "The name was held by a connected Claude chat")) << back;
}

// R-H7: a name held by an offline chat moves without --take, and the answer says whose it was;
// re-attaching a chat under another name says its old name was released.
TEST_F(TakeoverTest, OfflineHolderAndReleasedOldNameAreNamedInTheAnswer_RH7) {
  ASSERT_TRUE(has(type("claude", "old-chat", "/agentworks attach reviewer"), "Attached this chat as reviewer"));
  EXPECT_EQ(hook("claude", "SessionEnd", hook_payload("claude", "SessionEnd", "old-chat")).exit_code, 0);
  ASSERT_EQ(lookup("claude", "old-chat")["state"], "offline");

  const std::string moved = type("claude", "new-chat", "/agentworks attach reviewer");
  EXPECT_TRUE(has(moved, "Attached this chat as reviewer")) << moved;
  EXPECT_TRUE(has(moved, "The name was held by an offline Claude chat (session old-chat")) << moved;
  EXPECT_EQ(lookup("claude", "old-chat")["state"], "fenced");

  const std::string renamed = type("claude", "new-chat", "/agentworks attach tester \"Run the tests\"");
  EXPECT_TRUE(has(renamed, "Attached this chat as tester (Run the tests).")) << renamed;
  EXPECT_TRUE(has(renamed, "This chat's previous name reviewer was released: messages to agent:reviewer wait on "
                           "the server until a chat attaches it."))
      << renamed;
  EXPECT_FALSE(has(renamed, "The name was held by")) << renamed;
}

// R-H11: `/agentworks resume` in a chat that never attached names the offline names of this
// project's chats and the exact command that attaches one here; a chat of another project hears of none.
TEST_F(TakeoverTest, ResumeInABrandNewChatNamesThisProjectsOfflineNames_RH11) {
  const std::string project = home_.path("proj").string();
  ASSERT_TRUE(has(type("claude", "first", "/agentworks attach planner", project), "Attached this chat as planner"));
  ASSERT_TRUE(has(type("claude", "elsewhere", "/agentworks attach other", home_.path("other").string()),
                  "Attached this chat as other"));
  for (const char* s : {"first", "elsewhere"}) {
    EXPECT_EQ(hook("claude", "SessionEnd", hook_payload("claude", "SessionEnd", s)).exit_code, 0);
  }

  const std::string told = type("claude", "brand-new", "/agentworks resume", project + "/src");
  EXPECT_TRUE(has(told, "never attached")) << told;
  EXPECT_TRUE(has(told, "Offline names this project's chats held: planner (a Claude chat (session first))")) << told;
  EXPECT_FALSE(has(told, "other")) << told;
  EXPECT_TRUE(has(told, "type `/agentworks attach planner`")) << told;
  const std::string codex = type("codex", "codex-new", "agentworks resume", home_.path("third").string());
  EXPECT_TRUE(has(codex, "No chat of this project holds an offline name. Type `agentworks attach`")) << codex;

  // The named command works: the new chat takes the offline name without --take.
  EXPECT_TRUE(has(type("claude", "brand-new", "/agentworks attach planner", project), "Attached this chat as planner"));
}

// R-H8: an offline chat's waiting messages are counted on the server, in the table (with
// headers) and in --json; with the server down the count is "unknown while offline", never 0.
TEST_F(TakeoverTest, StatusAgentsCountsOfflineWaitingOnTheServerWithHeaders_RH8) {
  ASSERT_TRUE(has(type("claude", "away", "/agentworks attach napper"), "Attached this chat as napper"));
  ASSERT_TRUE(wait_connected("away"));
  EXPECT_EQ(hook("claude", "SessionEnd", hook_payload("claude", "SessionEnd", "away")).exit_code, 0);
  send_as(owner(), "worker", "agent:napper", "one");
  send_as(owner(), "worker", "agent:napper", "two");

  const auto js = owner().json({"status", "--agents"});
  ASSERT_EQ(js.exit_code, 0) << js.describe();
  const json row = js.json()["attachments"].at(0);
  EXPECT_EQ(row["state"], "offline");
  EXPECT_EQ(row["pending"], 2) << row.dump();
  EXPECT_EQ(row["pending_source"], "server");

  const auto table = owner().run({"status", "--agents"});
  ASSERT_EQ(table.exit_code, 0) << table.describe();
  EXPECT_EQ(table.out.rfind("AGENT", 0), 0u) << table.out;
  for (const char* header : {"CHAT", "ATTACHMENT", "STATE/STREAM", "PENDING", "NOT ACKED", "ROUTE"}) {
    EXPECT_TRUE(has(table.out.substr(0, table.out.find('\n')), header)) << header << "\n" << table.out;
  }
  EXPECT_TRUE(has(table.out, "2 (on the server)")) << table.out;

  kill_server();
  const auto down = owner().json({"status", "--agents"});
  ASSERT_EQ(down.exit_code, 0) << down.describe();
  EXPECT_TRUE(down.json()["attachments"].at(0)["pending"].is_null()) << down.out;
  EXPECT_EQ(down.json()["attachments"].at(0)["pending_source"], "unknown");
  const auto down_table = owner().run({"status", "--agents"});
  EXPECT_TRUE(has(down_table.out, "unknown while offline")) << down_table.out;
  EXPECT_TRUE(has(down_table.out, "offline/stopped  unknown while offline  0  ")) << down_table.out;
}

// after `agentworks down`, `agentworks status` says how to bring the server back, not "try
// `agentworks status`".
TEST(StatusAfterDownTest, SaysToRunUpNotStatus) {
  TempHome home;
  const Cli cli(merge_env(home.env(), {{"AGENTWORKS_SERVER_BIN", server_binary()}}));
  struct Down {  // never leave a server or bridge behind, whatever fails
    const Cli& cli;
    ~Down() { cli.json({"down"}, std::nullopt, std::chrono::seconds(30)); }
  } cleanup{cli};
  const auto up = cli.json({"up", "--port", "0"}, std::nullopt, std::chrono::seconds(40));
  ASSERT_EQ(up.exit_code, 0) << up.describe();
  const auto down = cli.json({"down"}, std::nullopt, std::chrono::seconds(30));
  ASSERT_EQ(down.exit_code, 0) << down.describe();
  const auto status = cli.run({"status"});
  EXPECT_EQ(status.exit_code, 6) << status.describe();
  EXPECT_TRUE(has(status.err, "agentworks up")) << status.err;
  EXPECT_FALSE(has(status.err, "`agentworks status`")) << status.err;
}

}  // namespace
}  // namespace agentworks::testing
