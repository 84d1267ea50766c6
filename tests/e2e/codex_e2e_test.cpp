// Codex (the real CLI) against the mock model, with the agentworks hooks installed by `agentworks attach codex
// --yes` and trusted the way a person's folder-trust prompt and `/hooks` do (config.toml, written through
// `codex app-server`; never --dangerously-bypass-hook-trust). `codex exec` for one-shot prompts, the interactive
// TUI in tmux for chats that go on: there the command is typed without the slash, since the TUI rejects unknown
// slash commands itself. Codex exits 0 even when a hook blocks: assertions are on the mock and the bridge.
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <map>
#include <memory>

#include "driver/agent_env.hpp"
#include "driver/cli_locator.hpp"
#include "driver/codex_trust.hpp"
#include "driver/e2e_fixture.hpp"
#include "driver/tmux_session.hpp"

namespace agentworks::e2e {
namespace {

using nlohmann::json;


class CodexE2eTest : public E2eTest {
 protected:
  void SetUp() override {
    AW_E2E_NEED_CLI(codex_binary(), "codex");
    E2eTest::SetUp();
    install_for("codex", env_);
  }
  void TearDown() override {
    for (auto& [name, tui] : tuis_) {
      if (HasFailure()) note("--- screen of " + name + " ---\n" + tui->screen());
    }
    tuis_.clear();
    E2eTest::TearDown();
  }

  testing::ProcessResult exec(const std::vector<std::string>& args) {
    std::vector<std::string> argv{"exec", "--skip-git-repo-check"};
    argv.insert(argv.end(), args.begin(), args.end());
    const auto run = run_codex(env_, project_, argv);
    note("codex exec: " + describe_run(run));
    return run;
  }

  // An interactive Codex chat in tmux, ready for input.
  TmuxSession& tui(const std::string& name) {
    auto& t = tuis_[name];
    if (!t) {
      const auto dir = home_.path("tmux-" + name);
      std::filesystem::create_directories(dir);
      t = std::make_unique<TmuxSession>(dir, env_, project_,
                                        std::vector<std::string>{codex_binary().string(), "--no-daemon"});
      EXPECT_TRUE(t->wait_screen(kCodexComposerReady, std::chrono::seconds(60))) << t->screen();
    }
    return *t;
  }
  // Types `text` and Enter like the person, then waits for `done` and for the composer to be ready again.
  bool say(TmuxSession& t, const std::string& text, const std::function<bool()>& done) {
    return t.say(text, done, kCodexComposerReady);
  }
  // These tests prove the Stop hook route, so the native queue is turned off (codex_queue_e2e_test.cpp has it).
  bool attach_in_tui(TmuxSession& t, const std::string& name) {
    return say(t, "agentworks attach " + name + " \"Review incoming work\" --no-native", [&] {
      return attachment_named("codex", name).value("state", "") == "attached" && t.screen().find("Blocked by hook") != std::string::npos;
    });
  }
  testing::EnvOverrides env_;
  std::map<std::string, std::unique_ptr<TmuxSession>> tuis_;
};

// R-H4 (codex exec passes the prompt, slash or not, to UserPromptSubmit): attaches, the model never sees it.
TEST_F(CodexE2eTest, ExecTypedAttachAttachesAndTheModelNeverSeesIt_RH4) {
  const auto run = exec({"/agentworks attach reviewer \"Review incoming work\""});
  EXPECT_EQ(run.exit_code, 0) << describe_run(run);
  const std::string session = codex_session_id(run);
  ASSERT_FALSE(session.empty()) << describe_run(run);
  const json att = attachment("codex", session);
  EXPECT_EQ(att.value("agent_name", ""), "reviewer") << att.dump();
  EXPECT_FALSE(model_->any_conversation_contains("agentworks attach reviewer")) << model_->describe();
  EXPECT_TRUE(model_->main_turns().empty()) << model_->describe();
}

// R-H9: an exec run of a chat that never attached is untouched although messages wait for another chat.
TEST_F(CodexE2eTest, ExecUnattachedSessionIsUntouched_RH9) {
  const auto attach = exec({"agentworks attach reviewer \"Review incoming work\""});
  ASSERT_FALSE(attachment("codex", codex_session_id(attach)).empty()) << describe_run(attach);
  send_from_terminal("reviewer", "only for the reviewer");
  const auto run = exec({"An unrelated chat"});
  EXPECT_EQ(run.exit_code, 0) << describe_run(run);
  const auto turns = model_->main_turns();
  ASSERT_EQ(turns.size(), 1u) << model_->describe();
  EXPECT_EQ(turns[0].conversation.find("[agentworks]"), std::string::npos) << turns[0].conversation;
  EXPECT_FALSE(model_->any_conversation_contains("only for the reviewer")) << model_->describe();
}

// R-H4, R-H1, R-H3 in the TUI: the command typed without the slash attaches ("Blocked by hook", never sent
// to the model); a terminal message arrives as the next model input after Stop, labelled; several waiting
// messages arrive together in one follow-up, oldest first.
TEST_F(CodexE2eTest, TuiAttachThenMessagesArriveAfterStop_RH4_RH1_RH3) {
  auto& t = tui("a");
  ASSERT_TRUE(attach_in_tui(t, "reviewer")) << t.screen();
  EXPECT_FALSE(model_->any_conversation_contains("agentworks attach reviewer")) << model_->describe();
  const std::string session = attachment_named("codex", "reviewer").value("session_id", "");

  const std::string id = send_from_terminal("reviewer", "Please review PR 7 before lunch");
  ASSERT_TRUE(wait_pending("codex", session, 1));
  // The next three are sent while the model answers the turn that delivered the first, so they all wait when
  // that turn's Stop hook runs. Sent after the turn instead, they raced that Stop hook, which on a loaded
  // machine took the first of them alone. The callback owns what it uses (it runs on the mock's thread).
  auto three_waiting = std::make_shared<std::atomic<int>>(0);  // 0 not yet sent, 1 all three pending, 2 failed
  model_->on_main_turn([this, three_waiting, session](const ModelRequest& r) {
    if (r.last_user.find("Please review PR 7 before lunch") == std::string::npos || three_waiting->load() != 0) return;
    try {
      send_from_terminal("reviewer", "alpha first note");
      send_from_terminal("reviewer", "beta second note");
      send_from_terminal("reviewer", "gamma third note");
      three_waiting->store(wait_pending("codex", session, 3) ? 1 : 2);
    } catch (const std::exception&) {
      three_waiting->store(2);
    }
  });
  const bool said = say(t, "Keep working on the parser", [&] { return deliveries().size() >= 2; });
  model_->on_main_turn(nullptr);
  ASSERT_TRUE(said) << t.screen();
  ASSERT_EQ(three_waiting->load(), 1) << model_->describe();
  const auto work = model_->wait_for_user_text("Keep working on the parser", std::chrono::seconds(1));
  const auto delivered = model_->wait_for_user_text("Please review PR 7 before lunch", std::chrono::seconds(1));
  ASSERT_TRUE(work && delivered) << model_->describe();
  EXPECT_GT(delivered->seq, work->seq);
  EXPECT_NE(delivered->last_user.find("<hook_prompt"), std::string::npos) << delivered->last_user;
  EXPECT_NE(delivered->last_user.find(kDeliveryLabel), std::string::npos) << delivered->last_user;
  EXPECT_NE(delivered->last_user.find("agent:worker"), std::string::npos) << delivered->last_user;
  if (!id.empty()) {
    EXPECT_NE(delivered->last_user.find(id), std::string::npos) << delivered->last_user;
  }

  const auto all = deliveries();
  ASSERT_EQ(all.size(), 2u) << model_->describe();
  const std::string& text = all[1].last_user;
  const auto a = text.find("alpha first note");
  const auto b = text.find("beta second note");
  const auto c = text.find("gamma third note");
  ASSERT_TRUE(a != std::string::npos && b != std::string::npos && c != std::string::npos) << text;
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
}

// R-H2 in the TUI: with a new message always waiting, 3 continuations and then the turn ends.
TEST_F(CodexE2eTest, TuiLoopGuardStopsContinuations_RH2) {
  auto& t = tui("a");
  ASSERT_TRUE(attach_in_tui(t, "reviewer")) << t.screen();
  const std::string session = attachment_named("codex", "reviewer").value("session_id", "");
  cli_ok(owner(), {"agents", "set", "reviewer", "--nudge", "off"});  // the chain is deliveries only (R-X3 aside)
  // The callback runs on the mock's thread and may still be running when this body returns: it owns what it
  // uses (by value / shared), never this stack frame (ASan caught a use after scope here).
  auto sent = std::make_shared<std::atomic<int>>(0);
  model_->on_main_turn([this, sent, session](const ModelRequest&) {
    try {
      const int n = ++*sent;
      if (n > 10) return;
      send_from_terminal("reviewer", "loop message " + std::to_string(n));
      wait_pending("codex", session, 1);
    } catch (const std::exception&) {
    }
  });
  ASSERT_TRUE(say(t, "Start the loop", [&] { return deliveries().size() >= 3; })) << t.screen();
  model_->on_main_turn(nullptr);
  EXPECT_EQ(deliveries().size(), 3u) << model_->describe();
  EXPECT_EQ(model_->main_turns().size(), 4u) << model_->describe();
}

// R-H8 in the TUI: after `agentworks detach` nothing more arrives.
TEST_F(CodexE2eTest, TuiDetachStopsDelivery_RH8) {
  auto& t = tui("a");
  ASSERT_TRUE(attach_in_tui(t, "reviewer")) << t.screen();
  ASSERT_TRUE(say(t, "agentworks detach", [&] { return attachment_named("codex", "reviewer").empty(); }))
      << t.screen();
  send_from_terminal("reviewer", "sent after detach");
  ASSERT_TRUE(say(t, "Work after detach",
                  [&] { return model_->wait_for_user_text("Work after detach", std::chrono::milliseconds(1)).has_value(); }))
      << t.screen();
  EXPECT_FALSE(model_->any_conversation_contains("sent after detach")) << model_->describe();
  EXPECT_FALSE(model_->any_conversation_contains("agentworks detach")) << model_->describe();
}

// R-H7 in the TUI: a second chat taking the name fences the first, which gets nothing more.
TEST_F(CodexE2eTest, TuiSecondChatTakingTheNameFencesTheFirst_RH7) {
  auto& first = tui("first");
  ASSERT_TRUE(attach_in_tui(first, "reviewer")) << first.screen();
  const std::string first_session = attachment_named("codex", "reviewer").value("session_id", "");
  auto& second = tui("second");
  // The first chat is connected: without --take the answer names it and nothing changes.
  ASSERT_TRUE(say(second, "agentworks attach reviewer \"Review incoming work\" --no-native", [&] {
    return second.screen().find("--take") != std::string::npos;
  })) << second.screen();
  EXPECT_EQ(attachment("codex", first_session).value("state", ""), "attached") << attachment("codex", first_session).dump();
  EXPECT_EQ(attachment_named("codex", "reviewer").value("session_id", ""), first_session);
  ASSERT_TRUE(say(second, "agentworks attach reviewer \"Review incoming work\" --no-native --take", [&] {
    return attachment_named("codex", "reviewer").value("session_id", "") != first_session;
  })) << second.screen();
  ASSERT_TRUE(testing::wait_until([&] { return attachment("codex", first_session).value("state", "") == "fenced"; }))
      << attachment("codex", first_session).dump();
  send_from_terminal("reviewer", "for the newest holder");
  ASSERT_TRUE(say(first, "Work in the first chat",
                  [&] { return model_->wait_for_user_text("Work in the first chat", std::chrono::milliseconds(1)).has_value(); }))
      << first.screen();
  EXPECT_TRUE(deliveries().empty()) << model_->describe();
  // Its turn end tells the person (not the model) that the name went to another chat.
  EXPECT_TRUE(first.wait_screen("lost the name reviewer", std::chrono::seconds(10))) << first.screen();
  EXPECT_FALSE(model_->any_conversation_contains("lost the name")) << model_->describe();
  ASSERT_TRUE(say(second, "Work in the second chat", [&] { return !deliveries().empty(); })) << second.screen();
  EXPECT_NE(deliveries()[0].last_user.find("for the newest holder"), std::string::npos);
}

}  // namespace
}  // namespace agentworks::e2e
