// Claude Code (the real CLI, one chat per session kept open in stream-json mode and fed turn by turn) against
// the mock model, with the agentworks plugin installed by `agentworks attach claude --yes` in the project.
// Claude exits 0 even when a hook blocks: every assertion is on what the model received and on the bridge.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <memory>

#include "driver/agent_env.hpp"
#include "driver/claude_chat.hpp"
#include "driver/cli_locator.hpp"
#include "driver/e2e_fixture.hpp"

namespace agentworks::e2e {
namespace {

using nlohmann::json;

constexpr const char* kSession1 = "6f1c2a7e-0000-4000-8000-000000000001";
constexpr const char* kSession2 = "6f1c2a7e-0000-4000-8000-000000000002";

class ClaudeChatE2eTest : public E2eTest {
 protected:
  void SetUp() override {
    AW_E2E_NEED_CLI(claude_binary(), "claude");
    E2eTest::SetUp();
    install_for("claude", env_);
  }

  void TearDown() override {
    if (HasFailure()) {
      for (const auto& [id, chat] : chats_) note(chat->transcript());
    }
    chats_.clear();
    E2eTest::TearDown();
  }

  // The person's next message in chat `session` (started on first use); true when the turn ended.
  bool turn(const std::string& session, const std::string& prompt) {
    auto& chat = chats_[session];
    if (!chat) chat = std::make_unique<ClaudeChat>(env_, project_, session, home_.path("claude-logs"));
    return chat->turn(prompt);
  }

  // These tests prove the Stop hook route, so the native push is turned off (claude_native_e2e_test.cpp has it).
  void attach(const std::string& session, const std::string& name) {
    ASSERT_TRUE(turn(session, "/agentworks attach " + name + " \"Review incoming work\" --no-native"));
    ASSERT_TRUE(testing::wait_until([&] { return attachment("claude", session).value("state", "") == "attached"; }))
        << "no attachment for " << session;
  }

  testing::EnvOverrides env_;
  std::map<std::string, std::unique_ptr<ClaudeChat>> chats_;
};

// R-H4: the typed command attaches this session and never reaches the model.
TEST_F(ClaudeChatE2eTest, TypedAttachAttachesAndTheModelNeverSeesIt_RH4) {
  attach(kSession1, "reviewer");
  const json att = attachment("claude", kSession1);
  EXPECT_EQ(att.value("agent_name", ""), "reviewer") << att.dump();
  EXPECT_FALSE(model_->any_conversation_contains("agentworks attach reviewer")) << model_->describe();
  EXPECT_TRUE(model_->main_turns().empty()) << model_->describe();
}

// R-H10: the project's .claude/settings.json (a file people commit) names the plugin and no path into this
// person's home, and the hooks it enables still run (the typed attach goes through them).
TEST_F(ClaudeChatE2eTest, ProjectSettingsHoldNoHomePathAndTheHooksRun_RH10) {
  const std::string settings = testing::read_file(project_ / ".claude" / "settings.json");
  EXPECT_EQ(settings.find(home_.home().string()), std::string::npos) << settings;
  EXPECT_EQ(settings.find("\"/"), std::string::npos) << settings;  // no absolute path at all
  const json doc = json::parse(settings, nullptr, false);
  EXPECT_EQ(doc, json({{"enabledPlugins", {{"agentworks@agentworks", true}}}})) << settings;
  attach(kSession1, "reviewer");
  EXPECT_EQ(attachment("claude", kSession1).value("agent_name", ""), "reviewer");
}

// R-H1, R-H3: a message sent from the terminal arrives as the next model input after the Stop hook, labelled as
// another agent's message with its sender and id.
TEST_F(ClaudeChatE2eTest, TerminalMessageArrivesInTheNextRequestAfterStop_RH1_RH3) {
  attach(kSession1, "reviewer");
  const std::string id = send_from_terminal("reviewer", "Please review PR 7 before lunch");
  ASSERT_TRUE(wait_pending("claude", kSession1, 1));
  ASSERT_TRUE(turn(kSession1, "Keep working on the parser"));
  const auto work = model_->wait_for_user_text("Keep working on the parser", std::chrono::seconds(5));
  ASSERT_TRUE(work) << model_->describe();
  const auto delivered = model_->wait_for_user_text("Please review PR 7 before lunch", std::chrono::seconds(5));
  ASSERT_TRUE(delivered) << model_->describe();
  EXPECT_GT(delivered->seq, work->seq);
  EXPECT_NE(delivered->last_user.find("Stop hook additional context"), std::string::npos) << delivered->last_user;
  EXPECT_NE(delivered->last_user.find(kDeliveryLabel), std::string::npos) << delivered->last_user;
  EXPECT_NE(delivered->last_user.find("agent:worker"), std::string::npos) << delivered->last_user;
  if (!id.empty()) {
    EXPECT_NE(delivered->last_user.find(id), std::string::npos) << delivered->last_user;
  }
  EXPECT_EQ(deliveries().size(), 1u) << model_->describe();  // offered once, never again
  EXPECT_TRUE(wait_pending("claude", kSession1, 0));
}

// R-H1: several waiting messages arrive together in one follow-up, oldest first.
TEST_F(ClaudeChatE2eTest, SeveralWaitingMessagesArriveInOneFollowUp_RH1) {
  attach(kSession1, "reviewer");
  send_from_terminal("reviewer", "alpha first note");
  send_from_terminal("reviewer", "beta second note");
  send_from_terminal("reviewer", "gamma third note");
  ASSERT_TRUE(wait_pending("claude", kSession1, 3));
  ASSERT_TRUE(turn(kSession1, "Carry on"));
  const auto all = deliveries();
  ASSERT_EQ(all.size(), 1u) << model_->describe();
  const std::string& text = all[0].last_user;
  const auto a = text.find("alpha first note");
  const auto b = text.find("beta second note");
  const auto c = text.find("gamma third note");
  ASSERT_NE(a, std::string::npos) << text;
  ASSERT_NE(b, std::string::npos) << text;
  ASSERT_NE(c, std::string::npos) << text;
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
}

// R-H2: when a new message is always waiting, the loop guard stops after 3 consecutive continuations and the
// chat ends its turn (Claude's own cap would allow 8).
TEST_F(ClaudeChatE2eTest, LoopGuardStopsContinuations_RH2) {
  attach(kSession1, "reviewer");
  cli_ok(owner(), {"agents", "set", "reviewer", "--nudge", "off"});  // the chain is deliveries only (R-X3 aside)
  // The callback runs on the mock's thread and may outlive this body: it owns what it uses (shared).
  auto sent = std::make_shared<std::atomic<int>>(0);
  auto send_failed = std::make_shared<std::atomic<bool>>(false);
  model_->on_main_turn([this, sent, send_failed](const ModelRequest&) {
    // Before answering each turn, one more message arrives for this chat.
    try {
      const int n = ++*sent;
      if (n > 10) return;
      send_from_terminal("reviewer", "loop message " + std::to_string(n));
      wait_pending("claude", kSession1, 1);
    } catch (const std::exception&) {
      *send_failed = true;
    }
  });
  const bool ended = turn(kSession1, "Start the loop");
  model_->on_main_turn(nullptr);
  EXPECT_TRUE(ended);  // the turn ends: no endless continuation
  EXPECT_FALSE(send_failed->load());
  EXPECT_EQ(deliveries().size(), 3u) << model_->describe();
  EXPECT_EQ(model_->main_turns().size(), 4u) << model_->describe();  // the prompt + 3 continuations
  const json att = attachment("claude", kSession1);
  EXPECT_GE(att.value("pending", 0L), 1L) << att.dump();  // the last one waits for the next turn
}

// R-H9: a chat that never attached gets nothing, although messages wait for another chat's agent.
TEST_F(ClaudeChatE2eTest, UnattachedSessionIsUntouched_RH9) {
  attach(kSession1, "reviewer");
  send_from_terminal("reviewer", "only for the reviewer");
  ASSERT_TRUE(wait_pending("claude", kSession1, 1));
  ASSERT_TRUE(turn(kSession2, "An unrelated chat"));
  const auto turns = model_->main_turns();
  ASSERT_EQ(turns.size(), 1u) << model_->describe();
  EXPECT_EQ(turns[0].conversation.find("[agentworks]"), std::string::npos) << turns[0].conversation;
  EXPECT_FALSE(model_->any_conversation_contains("only for the reviewer")) << model_->describe();
  EXPECT_TRUE(attachment("claude", kSession2).empty());
  EXPECT_TRUE(wait_pending("claude", kSession1, 1));  // still waiting for the attached chat
}

// R-H8: after a typed detach nothing more is delivered to this chat.
TEST_F(ClaudeChatE2eTest, DetachStopsDelivery_RH8) {
  attach(kSession1, "reviewer");
  ASSERT_TRUE(turn(kSession1, "/agentworks detach"));
  ASSERT_TRUE(testing::wait_until([&] { return attachment("claude", kSession1).empty(); }))
      << attachment("claude", kSession1).dump();
  EXPECT_FALSE(model_->any_conversation_contains("agentworks detach")) << model_->describe();
  send_from_terminal("reviewer", "sent after detach");
  ASSERT_TRUE(turn(kSession1, "Work after detach"));
  ASSERT_TRUE(model_->wait_for_user_text("Work after detach", std::chrono::seconds(5))) << model_->describe();
  EXPECT_FALSE(model_->any_conversation_contains("sent after detach")) << model_->describe();
  EXPECT_TRUE(deliveries().empty()) << model_->describe();
}

// R-H7: a second chat attaching under the same name takes it; the first is fenced and gets nothing more.
// Without --take nothing changes (the first chat is connected); with it the name moves and the first is fenced.
TEST_F(ClaudeChatE2eTest, SecondSessionTakingTheNameFencesTheFirst_RH7) {
  attach(kSession1, "reviewer");
  ASSERT_TRUE(turn(kSession2, "/agentworks attach reviewer \"Review incoming work\" --no-native"));
  EXPECT_EQ(attachment("claude", kSession1).value("state", ""), "attached") << attachment("claude", kSession1).dump();
  EXPECT_NE(attachment("claude", kSession2).value("state", ""), "attached") << attachment("claude", kSession2).dump();
  ASSERT_TRUE(turn(kSession2, "/agentworks attach reviewer \"Review incoming work\" --no-native --take"));
  ASSERT_TRUE(testing::wait_until([&] { return attachment("claude", kSession2).value("state", "") == "attached"; }))
      << attachment("claude", kSession2).dump();
  ASSERT_TRUE(testing::wait_until([&] { return attachment("claude", kSession1).value("state", "") == "fenced"; }))
      << attachment("claude", kSession1).dump();
  send_from_terminal("reviewer", "for the newest holder");
  ASSERT_TRUE(wait_pending("claude", kSession2, 1));
  ASSERT_TRUE(turn(kSession1, "Work in the first chat"));
  EXPECT_TRUE(deliveries().empty()) << model_->describe();
  ASSERT_TRUE(turn(kSession2, "Work in the second chat"));
  const auto all = deliveries();
  ASSERT_EQ(all.size(), 1u) << model_->describe();
  EXPECT_NE(all[0].last_user.find("for the newest holder"), std::string::npos);
}

}  // namespace
}  // namespace agentworks::e2e
