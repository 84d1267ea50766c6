// The agentworks messaging MCP tools inside the real Codex 0.171.0 TUI, on an environment
// as hostile as a desktop: XDG_RUNTIME_DIR set, a live foreign bridge socket at $XDG_RUNTIME_DIR/agentworks/
// bridge.sock (TempHome) and at /tmp/agentworks-<uid>/bridge.sock when that path is free (both fail the test when
// anything connects). Codex starts MCP servers with a stripped environment (no XDG_RUNTIME_DIR), so the server
// must find the bridge by HOME alone. MCP is configured only by `agentworks attach codex --yes` (no hand edits),
// hooks and project trusted as the person does, the person attaches by typing, a message is sent from the
// terminal and wakes the chat (codex-queue), and the mock model calls agent_message_ack then agent_message_reply.
#include <gtest/gtest.h>
#include <unistd.h>


#include <memory>
#include <regex>

#include <nlohmann/json.hpp>

#include "driver/agent_env.hpp"
#include "driver/cli_locator.hpp"
#include "driver/codex_daemon.hpp"
#include "driver/e2e_fixture.hpp"
#include "driver/tmux_session.hpp"
#include "testing/foreign_bridge.hpp"

namespace agentworks::e2e {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr const char* kReplyText = "Reviewed, looks good (from the codex chat)";

// The first message id in the woken turn's text (the delivered message).
std::string message_id_in(const ModelRequest& r) {
  static const std::regex id(R"(msg_[A-Za-z0-9_-]+)");
  std::smatch m;
  return std::regex_search(r.last_user, m, id) ? m.str() : "";
}

class CodexMcpE2eTest : public E2eTest {
 protected:
  void SetUp() override {
    AW_E2E_NEED_CLI(codex_binary(), "codex");
    E2eTest::SetUp();
    // The old fallback path, when no one else uses it now (another test run may hold it).
    const fs::path fallback = fs::path("/tmp") / ("agentworks-" + std::to_string(::getuid())) / "bridge.sock";
    std::error_code ec;
    if (!fs::exists(fallback, ec)) {
      try {
        tmp_foreign_ = std::make_unique<testing::ForeignBridge>(fallback);
      } catch (const std::exception& e) {
        note(std::string("no foreign socket at the /tmp fallback: ") + e.what());
      }
    }
  }
  void TearDown() override {
    if (tui_ && HasFailure()) note("--- screen ---\n" + tui_->screen());
    tui_.reset();
    if (daemon_) stop_codex_daemon(env_, project_);
    if (tmp_foreign_) {
      EXPECT_EQ(tmp_foreign_->connections(), 0) << "something connected to " << tmp_foreign_->socket();
    }
    tmp_foreign_.reset();
    E2eTest::TearDown();
  }

  // The Codex TUI in tmux, ready for input: `codex --no-daemon` (its MCP servers are its own children) or, with
  // `daemon`, plain `codex` as a person starts it (its background app-server runs the hooks and MCP servers).
  TmuxSession& start_tui(bool daemon = false) {
    const auto dir = home_.path("tmux-codex");
    fs::create_directories(dir);
    daemon_ = daemon;
    std::vector<std::string> argv{codex_binary().string()};
    if (!daemon) argv.push_back("--no-daemon");
    tui_ = std::make_unique<TmuxSession>(dir, env_, project_, argv);
    EXPECT_TRUE(tui_->wait_screen(kCodexComposerReady, 60s)) << tui_->screen();
    return *tui_;
  }
  bool attach_in_tui(TmuxSession& t, const std::string& name) {
    return t.say("agentworks attach " + name + " \"Review incoming work\"",
                 [&] { return attachment_named("codex", name).value("state", "") == "attached"; }, kCodexComposerReady);
  }
  // The woken turn acknowledges (processed) and replies with the MCP tools.
  void script_woken_turn() {
    script_ack_then_reply(kReplyText);
    model_->set_default_reply("Done: acknowledged and replied.");
  }
  testing::EnvOverrides env_;
  std::unique_ptr<TmuxSession> tui_;
  std::unique_ptr<testing::ForeignBridge> tmp_foreign_;
  bool daemon_ = false;
};

// R-C1, R-C4, R-C5, R-C8, R-H10: with the MCP server installed by `agentworks attach codex --allow-tools`, the woken
// turn's ack marks the message processed and its reply reaches the sender; no tool result says "not attached",
// and nothing reached a foreign socket (TempHome and TearDown check).
TEST_F(CodexMcpE2eTest, WokenTurnAcksAndRepliesThroughInstalledMcpTools_RC1_RC4_RC5_RC8_RH10) {
  install_for("codex", env_, {"--allow-tools"});
  auto& t = start_tui();
  ASSERT_TRUE(attach_in_tui(t, "reviewer")) << t.screen();
  script_woken_turn();

  const std::string id = send_from_terminal("reviewer", "Please review PR 13 and reply");
  ASSERT_FALSE(id.empty());
  // Codex hands the model the tool's structured content (the bridge's answer), not its text.
  expect_woken_turn_acked_and_replied(id, kReplyText);
}

// R-C8, R-C4, R-C5: the same with plain `codex` (the TUI a person starts: its daemon starts the MCP server, still
// with the stripped environment).
TEST_F(CodexMcpE2eTest, DaemonTuiWokenTurnAcksAndReplies_RC4_RC5_RC8) {
  install_for("codex", env_, {"--allow-tools"});
  auto& t = start_tui(/*daemon=*/true);
  ASSERT_TRUE(attach_in_tui(t, "reviewer")) << t.screen();
  script_woken_turn();

  const std::string id = send_from_terminal("reviewer", "Please review PR 15 and reply");
  ASSERT_FALSE(id.empty());
  expect_woken_turn_acked_and_replied(id, kReplyText);
}

// R-D1, R-D2 with the real Codex TUI: the person grants the attached chat the api Crew; the model calls
// call_function through the installed MCP server, its turn ends, and the call's outcome wakes the idle chat through
// Codex's queue, labelled as the server's notice with the call id and the answer, offered once.
TEST_F(CodexMcpE2eTest, DelegatedCallsOutcomeWakesTheChat_RD1_RD2) {
  install_for("codex", env_, {"--allow-tools"});
  register_echo_crew_and_script_the_call();
  auto& t = start_tui();
  ASSERT_TRUE(attach_in_tui(t, "reviewer")) << t.screen();
  cli_ok(owner(), {"agents", "grant", "reviewer", "--functions", "api"});
  model_->set_default_reply("Waiting for the outcome.");

  ASSERT_TRUE(t.say("Delegate the echo to the api Crew, then wait for its outcome",
                    [&] { return model_->wait_for_tool_result("call_function", 0, 100ms).has_value(); },
                    kCodexComposerReady))
      << model_->describe();
  expect_delegated_outcome_woke_the_chat();
}

// R-X1, R-X5 with the real Codex TUI: the person sets the attached chat direct; a message wakes the idle chat through
// Codex's queue, the model answers in plain text, and the Stop hook carries that final text to the sender as the
// reply, once.
TEST_F(CodexMcpE2eTest, ADirectChatsFinalTextIsItsReply_RX1_RX5) {
  install_for("codex", env_);
  auto& t = start_tui();
  ASSERT_TRUE(attach_in_tui(t, "reviewer")) << t.screen();
  cli_ok(owner(), {"agents", "set", "reviewer", "--communication", "direct"});
  model_->set_default_reply("Direct answer from Codex: PR 22 is fine.");

  const std::string id = send_from_terminal("reviewer", "Please look at PR 22");
  ASSERT_TRUE(model_->wait_for_user_text("Please look at PR 22", 60s)) << model_->describe();
  std::vector<std::string> answers;
  ASSERT_TRUE(testing::wait_until(
      [&] {
        answers.clear();
        const json page = read_mailbox(owner(), "worker");
        for (const json& m : page.at("messages"))
          if (m.value("message", "") == "Direct answer from Codex: PR 22 is fine.")
            answers.push_back(m.value("message_id", ""));
        return !answers.empty();
      },
      90s, 100ms))
      << "the final text did not reach the sender\n" << read_mailbox(owner(), "worker").dump();
  EXPECT_EQ(receipt(id).at("reply_state"), "replied");
  // Another turn of the chat (typed): the reply is not sent again.
  ASSERT_TRUE(t.say("Anything else?", [&] { return turns_with("Anything else?").size() == 1; }, kCodexComposerReady));
  ASSERT_TRUE(testing::wait_until([&] { return model_->main_turns().size() >= 2; }, 30s));
  answers.clear();
  const json page = read_mailbox(owner(), "worker");
  for (const json& m : page.at("messages"))
    if (m.value("message", "") == "Direct answer from Codex: PR 22 is fine.") answers.push_back(m.value("message_id", ""));
  EXPECT_EQ(answers.size(), 1u) << "sent once";
}

// R-X3 with the real Codex TUI: a message woken through Codex's queue gets a text-only turn; the Stop hook asks
// once, the model stays silent, and the sender is told.
TEST_F(CodexMcpE2eTest, ASilentTurnIsAskedOnceThenTheSenderIsTold_RX3) {
  install_for("codex", env_, {"--allow-tools"});
  auto& t = start_tui();
  ASSERT_TRUE(attach_in_tui(t, "reviewer")) << t.screen();
  model_->set_default_reply("I read it.");
  const std::string id = send_from_terminal("reviewer", "Silent turn: what about PR 24?");
  expect_asked_once_then_unanswered(id, "what about PR 24?");
}

// R-X2 with the real Codex TUI: the woken turn declines with agent_message_no_reply; the sender's receipt reads
// no_reply and the reason never reaches the server.
TEST_F(CodexMcpE2eTest, AWokenChatDeclinesAndTheSenderSeesNoReplyNotTheReason_RX2) {
  install_for("codex", env_, {"--allow-tools"});
  auto& t = start_tui();
  ASSERT_TRUE(attach_in_tui(t, "reviewer")) << t.screen();
  model_->queue_tool_call({"agent_message_no_reply", [](const ModelRequest& r) {
                             return json{{"message_id", message_id_in(r)}, {"reason", "SECRET-REASON-22"}}.dump();
                           }});
  model_->set_default_reply("Nothing to answer.");
  const std::string id = send_from_terminal("reviewer", "FYI: the build is green");
  expect_declined_without_the_reason(id, "SECRET-REASON-22");
}

// Without --allow-tools Codex asks the person before the call (R-H10 keeps the CLI's own prompts): the TUI shows
// the approval question, nothing is recorded until the person approves by key, then the ack goes through.
TEST_F(CodexMcpE2eTest, WithoutAllowToolsCodexAsksAndTheApprovedCallGoesThrough_RH10_RC4) {
  install_for("codex", env_);
  auto& t = start_tui();
  ASSERT_TRUE(attach_in_tui(t, "reviewer")) << t.screen();
  script_woken_turn();

  const std::string id = send_from_terminal("reviewer", "Please review PR 14");
  ASSERT_FALSE(id.empty());
  // Codex 0.171.0: "Allow the agentworks MCP server to run tool "agent_message_ack"?" with the arguments and
  // 1. Allow (preselected) / 2. Allow for this session / 3. Always allow / 4. Cancel.
  ASSERT_TRUE(t.wait_screen("Allow the agentworks MCP server to run tool \"agent_message_ack\"?", 90s)) << t.screen();
  ASSERT_TRUE(t.wait_screen("Always allow", 10s)) << t.screen();
  EXPECT_TRUE(model_->tool_results().empty()) << "the call ran before the person approved";
  EXPECT_NE(receipt(id).value("state", ""), "processed");

  t.press("Enter");  // the preselected choice: allow this call
  const auto ack = model_->wait_for_tool_result("agent_message_ack", 0, 60s);
  ASSERT_TRUE(ack) << model_->describe();
  EXPECT_NE(ack->output.find("\"state\":\"processed\""), std::string::npos) << ack->output;
  EXPECT_TRUE(testing::wait_until([&] { return receipt(id).value("state", "") == "processed"; }, 30s, 100ms))
      << receipt(id).dump();
}

}  // namespace
}  // namespace agentworks::e2e
