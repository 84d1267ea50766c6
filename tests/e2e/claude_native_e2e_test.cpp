// Native push into Claude Code's own session inbox with the real Claude Code 2.1.332 against the mock
// model: a message sent from the terminal wakes an idle chat with no prompt typed, a busy chat gets it after its
// turn, the Stop hook never offers it again, a chat that exited gets it through the hook of its resumed session,
// and Claude Code 2.1.197 (no inbox) keeps the Stop hook with the reason shown. docs/native-routes.md has the
// facts; the adapter is daemon/lib/native/claude_inbox.*, the router daemon/lib/native/native_router.*.
#include <gtest/gtest.h>

#include <ctime>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "agentworks/utc_time.hpp"
#include "driver/agent_env.hpp"
#include "driver/cli_locator.hpp"
#include "driver/e2e_fixture.hpp"
#include "driver/tmux_session.hpp"
#include "support/crew_folder.hpp"
#include "testing/binaries.hpp"
#include "testing/piped_process.hpp"

namespace agentworks::e2e {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

constexpr const char* kSession = "6f1c2a7e-0000-4000-8000-00000000a001";

// One stream-json chat of a given Claude binary that counts its turns' result lines: a pushed turn ends with a
// result line nobody asked for, so "the next result" is not "my turn's result" here.
class StreamChat {
 public:
  StreamChat(const std::filesystem::path& claude, const testing::EnvOverrides& env,
             const std::filesystem::path& project, const std::filesystem::path& log_dir,
             const std::vector<std::string>& extra)
      : stderr_path_(log_dir / "claude-native.err") {
    std::filesystem::create_directories(log_dir);
    std::vector<std::string> argv{claude.string(), "-p", "--input-format", "stream-json", "--output-format",
                                  "stream-json", "--verbose"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    process_ = std::make_unique<testing::PipedProcess>(argv, env, project, stderr_path_);
  }
  bool send(const std::string& prompt) {
    return process_->write_line(json{{"type", "user"}, {"message", {{"role", "user"}, {"content", prompt}}}}.dump());
  }
  // Reads stdout until `n` result lines were seen in total (false on timeout or exit).
  bool wait_results(int n, std::chrono::milliseconds timeout = 60s) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (results_ < n) {
      const auto line = process_->read_line(deadline);
      if (!line) return false;
      const json event = json::parse(*line, nullptr, false);
      if (event.is_object() && event.value("type", "") == "result") ++results_;
    }
    return true;
  }
  int results() const { return results_; }
  bool end(std::chrono::milliseconds timeout = 30s) {
    process_->close_stdin();
    const auto code = process_->wait_exit(timeout);
    return code && *code == 0;
  }
  std::string transcript() const {
    return "stdout:\n" + process_->transcript() + "\nstderr:\n" + testing::read_file(stderr_path_);
  }

 private:
  std::filesystem::path stderr_path_;
  std::unique_ptr<testing::PipedProcess> process_;
  int results_ = 0;
};

class ClaudeNativeE2eTest : public E2eTest {
 protected:
  void SetUp() override {
    AW_E2E_NEED_CLI(claude_binary(), "claude");
    E2eTest::SetUp();
    install_for("claude", env_);
  }
  void TearDown() override {
    if (HasFailure()) {
      if (chat_) note(chat_->transcript());
      if (tui_) note("--- screen ---\n" + tui_->screen());
      note("--- status ---\n" + attachment("claude", session_).dump());
    }
    chat_.reset();
    tui_.reset();
    E2eTest::TearDown();
  }

  void start_chat(const std::filesystem::path& claude, const std::vector<std::string>& extra) {
    chat_ = std::make_unique<StreamChat>(claude, env_, project_, home_.path("claude-logs"), extra);
  }
  // The typed `/agentworks attach` (blocked by UserPromptSubmit, never reaches the model).
  void attach_chat(const std::string& session) {
    session_ = session;
    ASSERT_TRUE(chat_->send("/agentworks attach reviewer \"Review incoming work\""));
    ASSERT_TRUE(chat_->wait_results(chat_->results() + 1)) << "the attach turn did not end";
    ASSERT_TRUE(testing::wait_until([&] { return attachment("claude", session).value("state", "") == "attached"; }))
        << "no attachment for " << session;
  }
  json delivery() { return attachment("claude", session_).value("delivery", json::object()); }
  // `attach claude --allow-tools`, and the project folder trusted as the person's first-run dialog does (the
  // project's allow rules apply only there).
  void install_with_allowed_tools_in_a_trusted_folder() {
    install_for("claude", env_, {"--allow-tools"});
    const auto state_path = home_.home() / ".claude.json";
    json state = json::parse(testing::read_file(state_path), nullptr, false);
    if (!state.is_object()) state = json::object();
    state["projects"][project_.string()]["hasTrustDialogAccepted"] = true;
    std::ofstream(state_path) << state.dump();
  }
  // Waits until the route is native (the bridge bound the exact registration of this process).
  bool wait_native() {
    return testing::wait_until([&] { return delivery().value("native", false); }, 20s, 50ms);
  }
  testing::EnvOverrides env_;
  std::string session_;
  std::unique_ptr<StreamChat> chat_;
  std::unique_ptr<TmuxSession> tui_;
};

// R-C1, R-C4, R-C5 (for Claude Code): installed with `--allow-tools` in a trusted folder, the woken
// turn acknowledges and replies through the plugin's MCP server (deferred tools called by name): the receipt is
// processed, the reply reaches the sender, and no tool result says "not attached" or asks for permission.
TEST_F(ClaudeNativeE2eTest, WokenTurnAcksAndRepliesThroughThePluginMcpTools_RC1_RC4_RC5) {
  install_with_allowed_tools_in_a_trusted_folder();

  const auto id_seen = script_ack_then_reply("Claude reviewed it");
  start_chat(claude_binary(), {"--session-id", kSession});
  attach_chat(kSession);
  ASSERT_TRUE(wait_native()) << delivery().dump();

  const std::string id = send_from_terminal("reviewer", "Native wake: review PR 16 and reply");
  // Claude Code, like Codex, gives the model the tool's structured content (the bridge's answer).
  expect_woken_turn_acked_and_replied(id, "Claude reviewed it");
  EXPECT_EQ(*id_seen, id);
}

// R-D1, R-D2 with the real Claude Code: the person grants the attached chat the api Crew; the model calls
// call_function through the plugin's MCP server, its turn ends, and the call's outcome wakes the idle chat in the
// same conversation (native push), labelled as the server's notice with the call id and the answer. The call
// names the chat's agent as its caller.
TEST_F(ClaudeNativeE2eTest, DelegatedCallsOutcomeWakesTheChat_RD1_RD2) {
  install_with_allowed_tools_in_a_trusted_folder();
  register_echo_crew_and_script_the_call();
  start_chat(claude_binary(), {"--session-id", kSession});
  attach_chat(kSession);
  ASSERT_TRUE(wait_native()) << delivery().dump();
  cli_ok(owner(), {"agents", "grant", "reviewer", "--functions", "api"});

  ASSERT_TRUE(chat_->send("Delegate the echo to the api Crew, then wait for its outcome"));
  expect_delegated_outcome_woke_the_chat();
}

// R-X2 with the real Claude Code: the woken turn declines with agent_message_no_reply (a deferred plugin tool called
// by name); the sender's receipt reads no_reply, and the reason never reaches the server.
TEST_F(ClaudeNativeE2eTest, AWokenChatDeclinesAndTheSenderSeesNoReplyNotTheReason_RX2) {
  install_with_allowed_tools_in_a_trusted_folder();
  model_->queue_tool_call({"agent_message_no_reply", [](const ModelRequest& r) {
                             static const std::regex id(R"(msg_[A-Za-z0-9_-]+)");
                             std::smatch m;
                             std::string found;
                             if (std::regex_search(r.last_user, m, id)) found = m.str();
                             return json{{"message_id", found}, {"reason", "SECRET-REASON-21"}}.dump();
                           }});
  model_->set_default_reply("Nothing to answer.");
  start_chat(claude_binary(), {"--session-id", kSession});
  attach_chat(kSession);
  ASSERT_TRUE(wait_native()) << delivery().dump();
  const std::string id = send_from_terminal("reviewer", "FYI: the release is out");
  expect_declined_without_the_reason(id, "SECRET-REASON-21");
}

// R-X3 with the real Claude Code: a message wakes the idle chat and the model ends its turn with text only (no
// tool call); the Stop hook asks once in the same turn, the model stays silent, and the sender is told.
TEST_F(ClaudeNativeE2eTest, ASilentTurnIsAskedOnceThenTheSenderIsTold_RX3) {
  model_->set_default_reply("I read it.");
  start_chat(claude_binary(), {"--session-id", kSession});
  attach_chat(kSession);
  ASSERT_TRUE(wait_native()) << delivery().dump();
  const std::string id = send_from_terminal("reviewer", "Silent turn: what about PR 23?");
  expect_asked_once_then_unanswered(id, "what about PR 23?");
}

// R-X1, R-X5 with the real Claude Code: the person sets the attached chat direct; a message wakes the idle chat,
// the model answers in plain text (no tool call), and that final text reaches the sender as the reply, once.
TEST_F(ClaudeNativeE2eTest, ADirectChatsFinalTextIsItsReply_RX1_RX5) {
  model_->set_default_reply("Direct answer: PR 21 looks good.");
  start_chat(claude_binary(), {"--session-id", kSession});
  attach_chat(kSession);
  ASSERT_TRUE(wait_native()) << delivery().dump();
  cli_ok(owner(), {"agents", "set", "reviewer", "--communication", "direct"});

  const std::string id = send_from_terminal("reviewer", "Please look at PR 21");
  ASSERT_TRUE(model_->wait_for_user_text("Please look at PR 21", 30s)) << model_->describe();
  const json sent = http_json(owner_http(), "GET", "/v1/messages/" + id + "/receipt", std::nullopt, 200);
  std::vector<std::string> answers;
  ASSERT_TRUE(testing::wait_until(
      [&] {
        answers.clear();
        const json page = read_mailbox(owner(), "worker");
        for (const json& m : page.at("messages"))
          if (m.value("message", "") == "Direct answer: PR 21 looks good.") answers.push_back(m.value("message_id", ""));
        return !answers.empty();
      },
      60s, 100ms))
      << "the final text did not reach the sender; receipt " << sent.dump() << "\n"
      << read_mailbox(owner(), "worker").dump();
  ASSERT_TRUE(chat_->wait_results(chat_->results() + 1));
  EXPECT_EQ(answers.size(), 1u) << "sent once";
  EXPECT_EQ(http_json(owner_http(), "GET", "/v1/messages/" + id + "/receipt", std::nullopt, 200)
                .at("delivery").at("reply_state"), "replied");
}

// R-W1, R-W2, R-W3, R-W4 with the real Claude Code: the model schedules two wakeups with the chat's tools and
// cancels one; the bridge and the server are restarted (a kill -9) while they are pending; the kept one prompts
// the idle chat once, by native push, in its own turn named as the server's wakeup; the cancelled one never comes.
TEST_F(ClaudeNativeE2eTest, AWakeupScheduledInTheChatWakesItOnceAcrossRestarts_RW1_RW2_RW3_RW4) {
  install_with_allowed_tools_in_a_trusted_folder();
  const auto in_seconds = [](int s) { return utc_text(static_cast<std::int64_t>(std::time(nullptr)) + s); };
  model_->queue_tool_call({"schedule_message_wakeup", [&](const ModelRequest&) {
                             return json{{"at", in_seconds(25)}, {"note", "Wakeup check: is deploy 9 done?"}}.dump();
                           }});
  model_->queue_tool_call({"schedule_message_wakeup", [&](const ModelRequest&) {
                             return json{{"at", in_seconds(25)}, {"note", "Cancelled wakeup: never shown"}}.dump();
                           }});
  model_->queue_tool_call({"cancel_message_wakeup", [](const ModelRequest& r) {
                             static const std::regex id(R"(wku_[0-9a-f]+)");
                             std::string last;
                             for (auto it = std::sregex_iterator(r.conversation.begin(), r.conversation.end(), id);
                                  it != std::sregex_iterator(); ++it)
                               last = it->str();
                             return json{{"wakeup_id", last}}.dump();
                           }});
  start_chat(claude_binary(), {"--session-id", kSession});
  attach_chat(kSession);
  ASSERT_TRUE(wait_native()) << delivery().dump();
  ASSERT_TRUE(chat_->send("Check on deploy 9 later"));
  const auto cancelled = model_->wait_for_tool_result("cancel_message_wakeup", 0, 90s);
  ASSERT_TRUE(cancelled) << model_->describe();
  EXPECT_NE(cancelled->output.find("\"state\":\"cancelled\""), std::string::npos) << cancelled->output;
  ASSERT_TRUE(chat_->wait_results(chat_->results() + 1)) << "the scheduling turn did not end";
  const json scheduled = cli_ok(owner(), {"wakeups", "list", "--agent", "reviewer"});
  ASSERT_EQ(scheduled.at("wakeups").size(), 2u) << scheduled.dump();

  EXPECT_EQ(bridge_->stop(), 0);
  kill_server();
  restart_server_same_port();
  bridge_->start();
  const json after = cli_ok(owner(), {"wakeups", "list", "--agent", "reviewer"});
  ASSERT_EQ(after.at("wakeups").at(0).at("state"), "pending")
      << "the restarts took past the due time: the test proved nothing\n" << after.dump();
  ASSERT_TRUE(wait_native()) << delivery().dump();

  // The delivered wakeup reads "Wakeup wku_... you scheduled at T for T: NOTE" (the tool results only echo notes).
  const auto woken = model_->wait_for_user_text("you scheduled at", 60s);
  ASSERT_TRUE(woken) << model_->describe();
  EXPECT_NE(woken->last_user.find("Wakeup check: is deploy 9 done?"), std::string::npos) << woken->last_user;
  EXPECT_NE(woken->last_user.find("a wakeup you scheduled, not an agent's words"), std::string::npos)
      << woken->last_user;
  ASSERT_TRUE(chat_->wait_results(chat_->results() + 1)) << "the woken turn did not end";
  ASSERT_TRUE(chat_->send("Anything else?"));
  ASSERT_TRUE(chat_->wait_results(chat_->results() + 1));
  const auto prompted = turns_with("you scheduled at");
  EXPECT_EQ(prompted.size(), 1u) << "prompted once: " << model_->describe();
  for (const auto& turn : prompted)
    EXPECT_EQ(turn.last_user.find("Cancelled wakeup: never shown"), std::string::npos) << turn.last_user;
  const json states = cli_ok(owner(), {"wakeups", "list", "--agent", "reviewer"});
  std::set<std::string> seen;
  for (const json& w : states.at("wakeups")) seen.insert(w.at("state").get<std::string>());
  EXPECT_EQ(seen, (std::set<std::string>{"offered", "cancelled"})) << states.dump();
}

// R-W3 with the real Claude Code: a wakeup that comes due while the chat is busy, and a message sent meanwhile,
// both arrive after that turn (which is not aborted), each once.
TEST_F(ClaudeNativeE2eTest, AWakeupDueWhileBusyArrivesAfterTheTurnWithAMessage_RW3) {
  start_chat(claude_binary(), {"--session-id", kSession});
  attach_chat(kSession);
  ASSERT_TRUE(wait_native()) << delivery().dump();
  model_->slow_turn_once("Run the long build", 10s);
  model_->queue_reply("Finished the long build");
  ASSERT_TRUE(chat_->send("Run the long build"));
  const auto slow = model_->wait_for_user_text("Run the long build", 30s);
  ASSERT_TRUE(slow) << model_->describe();
  const json w = cli_ok(owner(), {"wakeups", "schedule", "--agent", "reviewer", "--at",
                                  utc_text(static_cast<std::int64_t>(std::time(nullptr)) + 2), "--note",
                                  "Busy wakeup: look at the build log"});
  send_from_terminal("reviewer", "Busy message: the build log is in /tmp");
  ASSERT_TRUE(testing::wait_until(
      [&] {
        const json list = cli_ok(owner(), {"wakeups", "list", "--agent", "reviewer"});
        return list.at("wakeups").at(0).at("state") != "pending";
      },
      20s, 100ms));
  const bool still_busy = !chat_->wait_results(2, 200ms);
  const auto wakeup = model_->wait_for_user_text("Busy wakeup: look at the build log", 60s);
  const auto message = model_->wait_for_user_text("Busy message: the build log is in /tmp", 60s);
  ASSERT_TRUE(wakeup && message) << model_->describe();
  EXPECT_GT(wakeup->seq, slow->seq);
  EXPECT_GT(message->seq, slow->seq);
  EXPECT_NE(wakeup->conversation.find("Finished the long build"), std::string::npos) << "the turn was not aborted";
  EXPECT_TRUE(still_busy) << "the wakeup came after the slow turn: the test proved nothing";
  ASSERT_TRUE(chat_->wait_results(chat_->results() + 2, 90s));
  EXPECT_EQ(turns_with("Busy wakeup: look at the build log").size(), 1u) << model_->describe();
  EXPECT_EQ(turns_with("Run the long build").size(), 1u) << "the slow turn was not restarted";
  note("the wakeup and the message arrived in " +
       std::string(wakeup->seq == message->seq ? "one turn" : "separate turns") + "; " + w.dump());
}

// R-N1, R-N2: an idle stream-json chat is woken by a message sent from the terminal: the model gets it with no
// prompt typed, labelled with sender and id, through Claude's own inbox (the route is the exact registration).
// R-N2 / R-B5: the Stop hook at the end of that turn and of later turns never offers it again.
TEST_F(ClaudeNativeE2eTest, IdleStreamJsonChatIsWokenAndTheStopHookDoesNotRedeliver_RN1_RN2) {
  start_chat(claude_binary(), {"--session-id", kSession});
  attach_chat(kSession);
  ASSERT_TRUE(wait_native()) << delivery().dump();
  EXPECT_EQ(delivery().value("route", ""), "claude-inbox");
  EXPECT_TRUE(model_->main_turns().empty()) << model_->describe();

  const std::string id = send_from_terminal("reviewer", "Native wake: please review PR 8");
  const auto woken = model_->wait_for_user_text("Native wake: please review PR 8", 30s);
  ASSERT_TRUE(woken) << model_->describe();
  // No prompt was typed: the push started the turn (its Stop may already have asked about it, R-X3).
  EXPECT_EQ(model_->main_turns().front().seq, woken->seq) << model_->describe();
  EXPECT_NE(woken->last_user.find(kDeliveryLabel), std::string::npos) << woken->last_user;
  EXPECT_NE(woken->last_user.find("agent:worker"), std::string::npos) << woken->last_user;
  EXPECT_EQ(woken->last_user.find("Stop hook additional context"), std::string::npos)
      << "it came by push, not the hook";
  // R-B18: this first turn of a fresh session is the wake, whose request lists no deferred agentworks tool and no
  // MCP instructions: the text itself names the exact tool and the shell fallback, so the agent can acknowledge.
  EXPECT_NE(woken->last_user.find("mcp__plugin_agentworks_agentworks__agent_message_ack(message_id, delivery)"),
            std::string::npos)
      << woken->last_user;
  EXPECT_NE(woken->last_user.find("`agentworks bridge message ack --provider claude --message-id ID"),
            std::string::npos)
      << woken->last_user;
  if (!id.empty()) {
    EXPECT_NE(woken->last_user.find(id), std::string::npos) << woken->last_user;
  }
  EXPECT_NE(delivery().value("last", "").find("delivered"), std::string::npos) << delivery().dump();

  // The pushed turn ends (its Stop hook runs), then a typed turn and its Stop hook: never offered again.
  ASSERT_TRUE(chat_->wait_results(chat_->results() + 1)) << "the pushed turn did not end";
  ASSERT_TRUE(chat_->send("Keep working on the parser"));
  ASSERT_TRUE(model_->wait_for_user_text("Keep working on the parser", 30s)) << model_->describe();
  ASSERT_TRUE(chat_->wait_results(chat_->results() + 1));
  EXPECT_EQ(turns_with("Native wake: please review PR 8").size(), 1u) << model_->describe();
  // The pushed turn's Stop hook only asked about it, by id (R-X3); the typed turn's added nothing.
  const auto hooked = turns_with("Stop hook additional context");
  EXPECT_EQ(hooked.size(), 1u) << model_->describe();
  for (const auto& r : hooked) EXPECT_NE(r.last_user.find("did not answer it"), std::string::npos) << r.last_user;
  EXPECT_TRUE(wait_pending("claude", kSession, 0));
}

// R-N4: a busy chat (the model is slow on this turn) gets the pushed message after that turn, which completes
// (priority "next"; "now" would abort the request in flight and the model's answer would be lost).
TEST_F(ClaudeNativeE2eTest, BusyChatGetsThePushAfterItsTurnWhichIsNotAborted_RN4) {
  start_chat(claude_binary(), {"--session-id", kSession});
  attach_chat(kSession);
  ASSERT_TRUE(wait_native()) << delivery().dump();

  model_->slow_turn_once("Run the long migration", 8s);
  model_->queue_reply("Finished the long migration");
  ASSERT_TRUE(chat_->send("Run the long migration"));
  const auto slow = model_->wait_for_user_text("Run the long migration", 30s);
  ASSERT_TRUE(slow) << model_->describe();
  send_from_terminal("reviewer", "Busy push: check the release notes");
  // The push is written while the turn is still streaming (the mock holds it for 8 s).
  ASSERT_TRUE(testing::wait_until([&] { return delivery().value("last", "").find("delivered") != std::string::npos; },
                                  20s, 50ms))
      << delivery().dump();
  // Only the attach turn's result so far: the slow turn was still running when the push was written.
  const bool pushed_while_busy = !chat_->wait_results(2, 200ms);
  const auto delivered = model_->wait_for_user_text("Busy push: check the release notes", 60s);
  ASSERT_TRUE(delivered) << model_->describe();
  EXPECT_GT(delivered->seq, slow->seq);
  // The slow turn's whole answer is in the history before the pushed message: it was not aborted.
  EXPECT_NE(delivered->conversation.find("Finished the long migration"), std::string::npos) << delivered->conversation;
  EXPECT_EQ(turns_with("Run the long migration").size(), 1u) << "the slow turn was not restarted";
  EXPECT_TRUE(pushed_while_busy) << "the push only happened after the slow turn: the test proved nothing";
  EXPECT_EQ(turns_with("Busy push: check the release notes").size(), 1u) << model_->describe();
}

// R-N1, R-N2: after the chat exits the message waits (attachment offline, no route, no process); the resumed chat
// (a new process of the same session) gets it exactly once, through its own inbox or at its Stop hook.
TEST_F(ClaudeNativeE2eTest, ExitedChatKeepsTheMessageForTheResumedSession_RN1_RN2) {
  start_chat(claude_binary(), {"--session-id", kSession});
  attach_chat(kSession);
  ASSERT_TRUE(wait_native()) << delivery().dump();
  ASSERT_TRUE(chat_->end());
  ASSERT_TRUE(testing::wait_until([&] { return attachment("claude", kSession).value("state", "") == "offline"; }))
      << attachment("claude", kSession).dump();

  // Offline: the stream is stopped and the message waits on the server (nothing cached, no route, no push).
  send_from_terminal("reviewer", "While you were away: rebase the branch");
  const json away = attachment("claude", kSession);
  EXPECT_EQ(away.value("state", ""), "offline") << away.dump();
  EXPECT_FALSE(away.value("delivery", json::object()).value("native", true)) << away.dump();
  EXPECT_TRUE(turns_with("While you were away").empty());

  // R-H11: the resumed chat reconnects with the typed `/agentworks resume` (a fresh process key), which binds the
  // route to the new process: the waiting message then arrives, pushed into the idle chat.
  start_chat(claude_binary(), {"--resume", kSession});
  ASSERT_TRUE(chat_->send("/agentworks resume"));
  ASSERT_TRUE(chat_->wait_results(1)) << "the resume turn did not end";
  ASSERT_TRUE(testing::wait_until([&] { return attachment("claude", kSession).value("state", "") == "attached"; }))
      << attachment("claude", kSession).dump();
  const auto delivered = model_->wait_for_user_text("While you were away: rebase the branch", 60s);
  ASSERT_TRUE(delivered) << model_->describe();
  EXPECT_NE(delivered->last_user.find(kDeliveryLabel), std::string::npos) << delivered->last_user;
  ASSERT_TRUE(chat_->wait_results(2)) << "the delivery turn did not end";
  ASSERT_TRUE(chat_->send("Back again, continue"));
  ASSERT_TRUE(chat_->wait_results(3));
  EXPECT_TRUE(wait_pending("claude", kSession, 0));
  EXPECT_EQ(turns_with("While you were away: rebase the branch").size(), 1u) << model_->describe();
  note("resumed delivery: " + delivery().dump());
}

// R-N3: Claude Code 2.1.197 has no session inbox: the route is reported off with the reason (status), and the
// Stop hook delivers as before.
TEST_F(ClaudeNativeE2eTest, OldClaudeWithoutInboxReportsTheRouteOffAndTheStopHookDelivers_RN3) {
  AW_E2E_NEED_CLI(claude_2_1_197_binary(), "claude 2.1.197");
  start_chat(claude_2_1_197_binary(), {"--session-id", kSession});
  attach_chat(kSession);
  ASSERT_TRUE(testing::wait_until([&] { return !delivery().value("reason", "").empty(); }, 20s, 50ms))
      << delivery().dump();
  const json d = delivery();
  EXPECT_FALSE(d.value("native", true)) << d.dump();
  EXPECT_NE(d.value("reason", "").find("2.1.197"), std::string::npos) << d.dump();

  const auto status = project_cli({"status", "--agents", "--json"}, env_);
  ASSERT_EQ(status.exit_code, 0) << status.describe();
  EXPECT_NE(status.out.find("2.1.197"), std::string::npos) << status.out;

  send_from_terminal("reviewer", "Old Claude: please review PR 9");
  ASSERT_TRUE(wait_pending("claude", kSession, 1));
  EXPECT_TRUE(turns_with("Old Claude").empty()) << "nothing may be pushed to a Claude without an inbox";
  ASSERT_TRUE(chat_->send("Keep working on the parser"));
  const auto delivered = model_->wait_for_user_text("Old Claude: please review PR 9", 60s);
  ASSERT_TRUE(delivered) << model_->describe();
  EXPECT_NE(delivered->last_user.find("Stop hook additional context"), std::string::npos) << delivered->last_user;
  EXPECT_EQ(turns_with("Old Claude: please review PR 9").size(), 1u) << model_->describe();
}

// R-N1, R-N4: the interactive TUI, idle at its prompt, is woken by a message sent from the terminal.
TEST_F(ClaudeNativeE2eTest, IdleTuiIsWokenByATerminalMessage_RN1) {
  if (!tmux_available()) GTEST_SKIP() << "tmux not installed";
  accept_claude_first_run(env_);

  const auto dir = home_.path("tmux");
  std::filesystem::create_directories(dir);
  tui_ = std::make_unique<TmuxSession>(dir, env_, project_, std::vector<std::string>{claude_binary().string()});
  ASSERT_TRUE(tui_->wait_screen("\xE2\x9D\xAF", 60s)) << tui_->screen();  // the ❯ prompt
  tui_->type("/agentworks attach reviewer \"Review incoming work\"");
  ASSERT_TRUE(tui_->wait_screen("Review incoming work\"", 10s)) << tui_->screen();
  tui_->press("Enter");
  ASSERT_TRUE(testing::wait_until(
      [&] { return attachment_named("claude", "reviewer").value("state", "") == "attached"; }, 60s, 100ms))
      << tui_->screen();
  session_ = attachment_named("claude", "reviewer").value("session_id", "");
  ASSERT_TRUE(tui_->wait_screen("Attached this chat as reviewer", 10s)) << tui_->screen();
  tui_->erase();
  ASSERT_TRUE(wait_native()) << delivery().dump();

  send_from_terminal("reviewer", "TUI wake: the build is red");
  const auto woken = model_->wait_for_user_text("TUI wake: the build is red", 60s);
  ASSERT_TRUE(woken) << model_->describe();
  // No prompt was typed: the push started the turn (its Stop may already have asked about it, R-X3).
  EXPECT_EQ(model_->main_turns().front().seq, woken->seq) << model_->describe();
  EXPECT_NE(woken->last_user.find(kDeliveryLabel), std::string::npos) << woken->last_user;
  EXPECT_EQ(woken->last_user.find("Stop hook additional context"), std::string::npos) << woken->last_user;
  EXPECT_NE(woken->last_user.find("mcp__plugin_agentworks_agentworks__agent_message_ack"), std::string::npos)
      << woken->last_user;
}

}  // namespace
}  // namespace agentworks::e2e
