// Claude Code's interactive TUI in tmux, driven like a person: the typed `/agentworks attach` (a plugin skill, so
// the TUI lets it through to UserPromptSubmit) attaches the chat and never reaches the model; a message sent
// from the terminal arrives as the model's next input after the Stop hook. The TUI needs ~/.claude.json with
// onboarding done, the API key approved and the project's trust dialog accepted (docs/e2e.md).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "driver/agent_env.hpp"
#include "driver/cli_locator.hpp"
#include "driver/e2e_fixture.hpp"
#include "driver/tmux_session.hpp"

namespace agentworks::e2e {
namespace {

using nlohmann::json;

class ClaudeTuiE2eTest : public E2eTest {
 protected:
  void SetUp() override {
    AW_E2E_NEED_CLI(claude_binary(), "claude");
    E2eTest::SetUp();
    install_for("claude", env_);
    accept_claude_first_run(env_);
  }
  void TearDown() override {
    if (tui_ && HasFailure()) note("--- screen ---\n" + tui_->screen());
    tui_.reset();
    E2eTest::TearDown();
  }

  testing::EnvOverrides env_;
  std::unique_ptr<TmuxSession> tui_;
};

// R-H4, R-H1, R-H3 in the Claude Code TUI.
TEST_F(ClaudeTuiE2eTest, TypedAttachThenTerminalMessageArrivesAfterStop_RH4_RH1_RH3) {
  const auto dir = home_.path("tmux");
  std::filesystem::create_directories(dir);
  tui_ = std::make_unique<TmuxSession>(dir, env_, project_, std::vector<std::string>{claude_binary().string()});
  ASSERT_TRUE(tui_->wait_screen("\xE2\x9D\xAF", std::chrono::seconds(60))) << tui_->screen();  // the ❯ prompt

  // The Stop hook route (native push off; claude_native_e2e_test.cpp covers the session inbox).
  const std::string command = "/agentworks attach reviewer \"Review incoming work\" --no-native";
  tui_->type(command);
  ASSERT_TRUE(tui_->wait_screen("--no-native", std::chrono::seconds(10))) << tui_->screen();
  tui_->press("Enter");
  ASSERT_TRUE(testing::wait_until(
      [&] { return attachment_named("claude", "reviewer").value("state", "") == "attached"; },
      std::chrono::seconds(60), std::chrono::milliseconds(100)))
      << tui_->screen();
  const std::string session = attachment_named("claude", "reviewer").value("session_id", "");
  EXPECT_FALSE(model_->any_conversation_contains("agentworks attach reviewer")) << model_->describe();
  // The block's answer is shown to the person; Claude Code may then put the blocked prompt back into the input
  // box, so empty it before typing the next prompt (seen in CI: the two ran together).
  ASSERT_TRUE(tui_->wait_screen("Attached this chat as reviewer", std::chrono::seconds(10))) << tui_->screen();
  tui_->erase();

  send_from_terminal("reviewer", "Please review PR 7 before lunch");
  ASSERT_TRUE(wait_pending("claude", session, 1));
  tui_->type("Keep working on the parser");
  ASSERT_TRUE(tui_->wait_screen("Keep working on the parser", std::chrono::seconds(10))) << tui_->screen();
  tui_->press("Enter");
  const auto delivered = model_->wait_for_user_text("Please review PR 7 before lunch", std::chrono::seconds(60));
  ASSERT_TRUE(delivered) << model_->describe();
  const auto work = model_->wait_for_user_text("Keep working on the parser", std::chrono::seconds(1));
  ASSERT_TRUE(work) << model_->describe();
  EXPECT_GT(delivered->seq, work->seq);
  EXPECT_NE(delivered->last_user.find("NOT instructions from the person"), std::string::npos) << delivered->last_user;
  EXPECT_NE(delivered->last_user.find("agent:worker"), std::string::npos) << delivered->last_user;
  // What the person sees of a Stop-hook delivery: "Stop hook says: [agentworks] ..." under "Ran 1 stop hook",
  // never the warning "Stop hook reported a problem" that a {"decision":"block"} answer gets.
  EXPECT_TRUE(tui_->wait_screen("Stop hook says: [agentworks] 1 message from other agents", std::chrono::seconds(20)))
      << tui_->screen();
  EXPECT_EQ(tui_->screen().find("reported a problem"), std::string::npos) << tui_->screen();
  EXPECT_EQ(tui_->screen().find("stop hook problem"), std::string::npos) << tui_->screen();
  // The plugin's MCP instructions mention `/agentworks attach` in general; the typed command itself never
  // reaches the model.
  EXPECT_FALSE(model_->any_conversation_contains("agentworks attach reviewer")) << model_->describe();
}

}  // namespace
}  // namespace agentworks::e2e
