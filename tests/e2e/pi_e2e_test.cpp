// Pi with the real Pi 0.73.1 TUI in tmux, against the mock model (a custom provider speaking the Anthropic
// Messages API), the agentworks extension installed by `agentworks attach pi --yes`: the person attaches by typing
// `/agentworks attach` (a registered command the model never sees), messages are steered into the session by the
// extension with nothing typed, and the model acknowledges and replies through the tools the extension registers.
// Facts behind it: docs/plugins.md "Pi", docs/native-routes.md "Pi steer".
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <fstream>
#include <functional>
#include <memory>
#include <regex>
#include <sstream>

#include "driver/agent_env.hpp"
#include "driver/cli_locator.hpp"
#include "driver/e2e_fixture.hpp"
#include "driver/json_fields.hpp"
#include "driver/tmux_session.hpp"

namespace agentworks::e2e {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

// Pi's footer names the model once the TUI is up (and again after each turn).
constexpr const char* kPiReady = "mock-model";

// The pids of the processes whose command line contains `needle`.
std::vector<pid_t> processes_running(const std::string& needle) {
  std::vector<pid_t> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream cmd(entry.path() / "cmdline", std::ios::binary);
    std::string line((std::istreambuf_iterator<char>(cmd)), std::istreambuf_iterator<char>());
    for (auto& c : line) c = c == '\0' ? ' ' : c;
    if (line.find(needle) != std::string::npos) found.push_back(static_cast<pid_t>(std::stol(name)));
  }
  return found;
}

class PiE2eTest : public E2eTest {
 protected:
  void SetUp() override {
    AW_E2E_NEED_CLI(pi_binary(), "pi");
    E2eTest::SetUp();
    install_for("pi", env_);
  }
  void TearDown() override {
    if (tui_ && HasFailure()) note("--- Pi screen ---\n" + tui_->screen());
    tui_.reset();
    E2eTest::TearDown();
  }

  TmuxSession& start_pi() {
    const auto dir = home_.path("tmux-pi");
    fs::create_directories(dir);
    tui_ = std::make_unique<TmuxSession>(dir, env_, project_, pi_argv());
    EXPECT_TRUE(tui_->wait_screen(kPiReady, 60s)) << tui_->screen();
    return *tui_;
  }
  // Types `line` into Pi's editor like the person and presses Enter once it shows there (a screen line that starts
  // with it: a notice may hold the same words). Keys typed while Pi is still starting or restoring a session can
  // be dropped, so it is typed again, at most three times; then `done` is waited for.
  bool enter_line(TmuxSession& t, const std::string& line, const std::function<bool()>& done) {
    const auto shows = [&] {
      std::istringstream lines(t.screen());
      for (std::string l; std::getline(lines, l);) {
        const auto first = l.find_first_not_of(' ');
        if (first != std::string::npos && l.compare(first, line.size(), line) == 0) return true;
      }
      return false;
    };
    for (int attempt = 0; attempt < 3; ++attempt) {
      t.erase(static_cast<int>(line.size()) + 10);
      t.type(line);
      if (!testing::wait_until(shows, 5s, 100ms)) continue;
      t.press("Enter");
      return testing::wait_until(done, 60s, 100ms) && t.wait_screen(kPiReady, 60s);
    }
    return false;
  }
  // Types the command like the person and waits for the bridge to hold the attachment.
  bool attach_typed(const std::string& name) {
    return enter_line(*tui_, "/agentworks attach " + name + " \"Review incoming work\"", [&] {
      return text_field(attachment_named("pi", name), "state") == "attached" &&
             tui_->screen().find("Attached this chat") != std::string::npos;
    });
  }
  json delivery_of(const std::string& name) { return attachment_named("pi", name).value("delivery", json::object()); }
  bool wait_route(const std::string& name, bool native) {
    return testing::wait_until([&] { return bool_field(delivery_of(name), "native") == native; }, 30s, 100ms);
  }
  std::optional<ModelRequest> turn_with_id(const std::string& id, std::chrono::milliseconds timeout = 60s) {
    return model_->wait_for([&](const ModelRequest& r) { return r.main_turn && r.last_user.find(id) != std::string::npos; },
                            timeout);
  }
  // Pi reads its VERSION from $PI_PACKAGE_DIR/package.json: a directory of links to the real package with that
  // file edited makes the next start_pi() a Pi of `version` (no native route: its turn ends deliver, R-N3).
  void use_pi_version(const std::string& version) {
    const fs::path real = fs::canonical(pi_binary()).parent_path().parent_path();  // dist/cli.js -> the package
    const fs::path fake = home_.path("pi-" + version);
    fs::create_directories(fake);
    for (const auto& entry : fs::directory_iterator(real)) {
      if (entry.path().filename() != "package.json") fs::create_symlink(entry.path(), fake / entry.path().filename());
    }
    std::ifstream in(real / "package.json");
    json pkg = json::parse(in);
    pkg["version"] = version;
    std::ofstream(fake / "package.json") << pkg.dump(2);
    env_["PI_PACKAGE_DIR"] = fake.string();
  }

  testing::EnvOverrides env_;
  std::unique_ptr<TmuxSession> tui_;
};

// R-H4, R-N2, R-C1, R-C4, R-C5 (for Pi): the typed attach never reaches the model; the route is pi-steer; a
// message wakes the idle session with nothing typed, once; the woken turn acknowledges and replies through the
// extension's tools, for exactly this session; a typed detach ends the attachment.
TEST_F(PiE2eTest, TypedAttachSteersIntoIdleSessionAndToolsAckAndReply_RH4_RN2_RC1) {
  const auto id_seen = script_ack_then_reply("Pi reviewed it");
  auto& t = start_pi();
  ASSERT_TRUE(attach_typed("reviewer")) << t.screen();
  EXPECT_TRUE(model_->main_turns().empty()) << "the typed command reached the model: " << model_->describe();
  ASSERT_TRUE(wait_route("reviewer", true)) << delivery_of("reviewer").dump();
  EXPECT_EQ(text_field(delivery_of("reviewer"), "route"), "pi-steer");

  const std::string id = send_from_terminal("reviewer", "Steered into Pi: review PR 21 and reply");
  const auto woke = turn_with_id(id);
  ASSERT_TRUE(woke) << model_->describe();
  EXPECT_NE(woke->last_user.find("Steered into Pi: review PR 21 and reply"), std::string::npos) << woke->last_user;
  expect_woken_turn_acked_and_replied(id, "Pi reviewed it");
  EXPECT_EQ(*id_seen, id);
  EXPECT_EQ(turns_with("Steered into Pi").size(), 1u) << model_->describe();
  EXPECT_NE(text_field(delivery_of("reviewer"), "last").find("delivered"), std::string::npos) << delivery_of("reviewer").dump();
  const auto status = project_cli({"status", "--agents", "--json"}, env_);
  ASSERT_EQ(status.exit_code, 0) << status.describe();
  EXPECT_NE(status.out.find("pi-steer"), std::string::npos) << status.out;

  const std::string session = text_field(attachment_named("pi", "reviewer"), "session_id");
  ASSERT_TRUE(enter_line(t, "/agentworks detach", [&] {
    return attachment("pi", session).empty() || text_field(attachment("pi", session), "state") != "attached";
  })) << t.screen();
  EXPECT_EQ(turns_with("/agentworks").size(), 0u) << model_->describe();
}

// R-N4: a message sent while the session runs a turn waits for that run to end (a follow-up, never into the
// running turn): the running turn is answered once and the message is a later turn of its own.
TEST_F(PiE2eTest, BusySessionGetsItAfterItsRun_RN4) {
  auto& t = start_pi();
  ASSERT_TRUE(attach_typed("reviewer")) << t.screen();
  ASSERT_TRUE(wait_route("reviewer", true)) << delivery_of("reviewer").dump();

  const auto sent_id = send_during_slow_turn("Long task please", "Long task finished: marker 5151", 6s, "reviewer",
                                             "Message for a busy Pi");
  t.type("Long task please");
  ASSERT_TRUE(t.wait_screen("Long task please", 10s));
  t.press("Enter");
  ASSERT_TRUE(testing::wait_until([&] { return !sent_id->empty(); }, 60s, 100ms));
  const std::string id = *sent_id;
  const auto delivered = turn_with_id(id);
  ASSERT_TRUE(delivered) << model_->describe();
  model_->on_main_turn(nullptr);
  const auto long_turn = turns_with("Long task please");
  ASSERT_EQ(long_turn.size(), 1u) << "the running turn was re-sent: " << model_->describe();
  EXPECT_GT(delivered->seq, long_turn[0].seq);
  EXPECT_NE(delivered->conversation.find("Long task finished: marker 5151"), std::string::npos)
      << delivered->conversation;
  EXPECT_EQ(turns_with("Message for a busy Pi").size(), 1u) << model_->describe();
}

// R-N2: the extension's server is frozen, the push is offered (persisted) and answered into its socket, then the
// server is killed before it hands the text on. The message stays offered and is never pushed again, by the
// restarted server or the end of a turn; the next message arrives alone.
TEST_F(PiE2eTest, ExtensionKilledBetweenOfferAndWriteNeverPushesTwice_RN2) {
  auto& t = start_pi();
  ASSERT_TRUE(attach_typed("reviewer")) << t.screen();
  ASSERT_TRUE(wait_route("reviewer", true)) << delivery_of("reviewer").dump();
  const std::string session = text_field(attachment_named("pi", "reviewer"), "session_id");
  // The extension's server for exactly this session (the session id is unique).
  const auto servers = processes_running("mcp serve --provider pi --session-id " + session);
  ASSERT_EQ(servers.size(), 1u);
  ASSERT_EQ(::kill(servers[0], SIGSTOP), 0);

  const std::string lost = send_from_terminal("reviewer", "Held by a frozen extension server");
  ASSERT_TRUE(testing::wait_until([&] {
    const json a = attachment("pi", session);
    return a.value("pending", -1) == 0 && a.value("offered_not_admitted", 0) >= 1;
  }, 30s, 100ms)) << attachment("pi", session).dump();
  ASSERT_EQ(::kill(servers[0], SIGKILL), 0);
  // No result within the bridge's wait: uncertain, offered, never pushed again.
  ASSERT_TRUE(testing::wait_until([&] { return text_field(delivery_of("reviewer"), "last").find("uncertain") != std::string::npos; },
                                  30s, 200ms))
      << delivery_of("reviewer").dump();
  ASSERT_TRUE(wait_route("reviewer", true)) << "the extension did not start its server again: " << delivery_of("reviewer").dump();

  const std::string next = send_from_terminal("reviewer", "After the restart of the extension server");
  ASSERT_TRUE(turn_with_id(next)) << model_->describe();
  ASSERT_TRUE(t.say("Anything else?", [&] { return !turns_with("Anything else?").empty(); }, kPiReady)) << t.screen();
  EXPECT_TRUE(turns_with("Held by a frozen extension server").empty()) << model_->describe();
  EXPECT_FALSE(model_->any_conversation_contains("Held by a frozen extension server")) << model_->describe();
  EXPECT_EQ(turns_with("After the restart of the extension server").size(), 1u) << model_->describe();
  (void)lost;
}

// R-N3: a Pi whose version agentworks has not verified (Pi reads it from PI_PACKAGE_DIR/package.json) gets no
// pushes; status says why, and the message arrives at the end of the next turn (the Stop hook's counterpart).
TEST_F(PiE2eTest, UnverifiedVersionFallsBackToTurnEndDelivery_RN3) {
  use_pi_version("0.72.9");
  auto& t = start_pi();
  ASSERT_TRUE(attach_typed("reviewer")) << t.screen();
  ASSERT_TRUE(testing::wait_until([&] { return text_field(delivery_of("reviewer"), "reason").find("0.72.9") != std::string::npos; },
                                  30s, 100ms))
      << delivery_of("reviewer").dump();
  EXPECT_FALSE(bool_field(delivery_of("reviewer"), "native"));

  const std::string id = send_from_terminal("reviewer", "Turn-end delivery for an unverified Pi");
  const std::string session = text_field(attachment_named("pi", "reviewer"), "session_id");
  ASSERT_TRUE(wait_pending("pi", session, 1));
  EXPECT_FALSE(turn_with_id(id, 3s)) << "pushed into an unverified Pi: " << model_->describe();
  ASSERT_TRUE(t.say("Do a small thing", [&] { return !turns_with("Do a small thing").empty(); }, kPiReady)) << t.screen();
  const auto delivered = turn_with_id(id);
  ASSERT_TRUE(delivered) << model_->describe();
  EXPECT_GT(delivered->seq, turns_with("Do a small thing")[0].seq);
  EXPECT_EQ(turns_with("Turn-end delivery for an unverified Pi").size(), 1u) << model_->describe();
  EXPECT_TRUE(wait_pending("pi", session, 0));
}

// R-H11, R-H12: /quit takes the attachment offline (name kept) and a message sent then waits; `pi --continue` runs
// the same session in a new process, whose start tells the person to resume; the typed resume reconnects exactly
// this session (the new process is bound) and the waiting message arrives once.
TEST_F(PiE2eTest, QuitGoesOfflineAndTypedResumeReconnectsTheSameSession_RH11_RH12) {
  auto& t = start_pi();
  ASSERT_TRUE(attach_typed("reviewer")) << t.screen();
  const std::string session = text_field(attachment_named("pi", "reviewer"), "session_id");
  // Pi writes a session's file with its first message: only then can `pi --continue` find it.
  ASSERT_TRUE(t.say("Hello before quitting", [&] { return !turns_with("Hello before quitting").empty(); }, kPiReady))
      << t.screen();
  t.type("/quit");
  ASSERT_TRUE(t.wait_screen("/quit", 10s));
  t.press("Enter");
  ASSERT_TRUE(testing::wait_until([&] { return text_field(attachment("pi", session), "state") == "offline"; }, 30s,
                                  100ms))
      << attachment("pi", session).dump();
  const std::string id = send_from_terminal("reviewer", "Waiting while Pi was closed");
  tui_.reset();

  const auto dir = home_.path("tmux-pi-again");
  fs::create_directories(dir);
  tui_ = std::make_unique<TmuxSession>(dir, env_, project_, pi_argv({"--continue"}));
  auto& again = *tui_;
  ASSERT_TRUE(again.wait_screen("/agentworks resume", 60s)) << "the start does not tell how to reconnect";
  ASSERT_TRUE(enter_line(again, "/agentworks resume",
                         [&] { return text_field(attachment("pi", session), "state") == "attached"; }))
      << again.screen();
  EXPECT_EQ(text_field(attachment_named("pi", "reviewer"), "session_id"), session);
  const auto woke = turn_with_id(id);
  ASSERT_TRUE(woke) << model_->describe();
  EXPECT_EQ(turns_with("Waiting while Pi was closed").size(), 1u) << model_->describe();
}

// R-H2: the turn-end delivery continues the session within the bridge's loop guard: with one more message
// arriving during every turn, the typed turn is followed by 3 continuations, then the session stops (the last
// message waits for the next turn).
TEST_F(PiE2eTest, TurnEndDeliveryStopsAfterThreeContinuations_RH2) {
  use_pi_version("0.72.9");  // the turn-end delivery only: no pushes
  auto& t = start_pi();
  ASSERT_TRUE(attach_typed("reviewer")) << t.screen();
  const std::string session = text_field(attachment_named("pi", "reviewer"), "session_id");
  ASSERT_TRUE(testing::wait_until([&] { return !text_field(delivery_of("reviewer"), "reason").empty(); }, 30s, 100ms));
  cli_ok(owner(), {"agents", "set", "reviewer", "--nudge", "off"});  // the chain is deliveries only (R-X3 aside)
  auto sent = std::make_shared<std::atomic<int>>(0);
  auto send_failed = std::make_shared<std::atomic<bool>>(false);
  model_->on_main_turn([this, sent, send_failed, session](const ModelRequest&) {
    try {  // before answering each turn, one more message arrives for this chat
      const int n = ++*sent;
      if (n > 10) return;
      send_from_terminal("reviewer", "loop message " + std::to_string(n));
      wait_pending("pi", session, 1);
    } catch (const std::exception&) {
      *send_failed = true;
    }
  });
  ASSERT_TRUE(t.say("Start the loop", [&] { return !turns_with("Start the loop").empty(); }, kPiReady)) << t.screen();
  ASSERT_TRUE(testing::wait_until([&] { return deliveries().size() >= 3; }, 60s, 100ms)) << model_->describe();
  // The chain ends: no fourth delivery comes while the last message waits.
  ASSERT_TRUE(testing::wait_until([&] { return attachment("pi", session).value("pending", 0L) >= 1; }, 30s, 100ms));
  EXPECT_FALSE(testing::wait_until([&] { return deliveries().size() > 3; }, 3s, 100ms)) << model_->describe();
  model_->on_main_turn(nullptr);
  EXPECT_FALSE(send_failed->load());
  EXPECT_EQ(deliveries().size(), 3u) << model_->describe();
  EXPECT_EQ(model_->main_turns().size(), 4u) << model_->describe();  // the prompt + 3 continuations
}

}  // namespace
}  // namespace agentworks::e2e
