// Codex's native queue route with the real Codex 0.171.0 TUI in tmux, the agentworks hooks installed by
// `agentworks attach codex --yes` and trusted: the person attaches by typing, then a message sent from the terminal
// goes into the session through `codex queue` with nothing typed. Facts behind it: docs/native-routes.md.
// - An idle session is woken (R-N2 offer + admission, R-H1 arrival), a busy one gets the message as its next turn
//   and its running turn completes (R-N4); the Stop hook never delivers it again (R-N2).
// - The receipt says admitted via codex-queue, not processed (the agent's own ack processes).
// - A Codex the bridge does not know, and a thread the queue's server does not have, fall back to the Stop hook
//   (R-N3 fail closed, R-N2 refused -> pending).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <atomic>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <sstream>

#include "driver/agent_env.hpp"
#include "driver/cli_locator.hpp"
#include "driver/codex_daemon.hpp"
#include "driver/codex_trust.hpp"
#include "driver/e2e_fixture.hpp"
#include "driver/json_fields.hpp"
#include "driver/tmux_session.hpp"

namespace agentworks::e2e {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;
using namespace std::chrono_literals;


// The native binary the npm launcher runs (the one whose /proc/<pid>/exe the bridge sees with --no-daemon).
fs::path native_codex() {
  const auto p = node_modules_dir() / "@openai" / "codex-linux-x64" / "vendor" / "x86_64-unknown-linux-musl" /
                 "bin" / "codex";
  return fs::exists(p) ? p : fs::path();
}

class CodexQueueE2eTest : public E2eTest {
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
    for (const auto& env : daemon_envs_) stop_codex_daemon(env, project_);
    E2eTest::TearDown();
  }

  // An interactive Codex chat in tmux, ready for input. argv[0] is the program (default: the npm launcher).
  TmuxSession& tui(const std::string& name, std::vector<std::string> argv, const testing::EnvOverrides& env) {
    auto& t = tuis_[name];
    if (!t) {
      const auto dir = home_.path("tmux-" + name);
      fs::create_directories(dir);
      t = std::make_unique<TmuxSession>(dir, env, project_, argv);
      EXPECT_TRUE(t->wait_screen(kCodexComposerReady, 60s)) << t->screen();
    }
    return *t;
  }
  // The default TUI: it starts Codex's background app-server daemon, which runs the hooks.
  TmuxSession& daemon_tui(const std::string& name) {
    daemon_envs_.push_back(env_);
    return tui(name, {codex_binary().string()}, env_);
  }
  TmuxSession& no_daemon_tui(const std::string& name) {
    return tui(name, {codex_binary().string(), "--no-daemon"}, env_);
  }

  bool say(TmuxSession& t, const std::string& text, const std::function<bool()>& done) {
    return t.say(text, done, kCodexComposerReady);
  }
  bool attach_in_tui(TmuxSession& t, const std::string& name, const std::string& extra = "") {
    return say(t, "agentworks attach " + name + " \"Review incoming work\"" + extra, [&] {
      return attachment_named("codex", name).value("state", "") == "attached" &&
             t.screen().find("Blocked by hook") != std::string::npos;
    });
  }
  json delivery_of(const std::string& name) { return attachment_named("codex", name).value("delivery", json::object()); }
  // Waits until the route of `name` is checked: true when it is the native codex-queue route.
  bool wait_route_checked(const std::string& name) {
    testing::wait_until([&] {
      const json d = delivery_of(name);
      return d.is_object() && !d.empty() && !bool_field(d, "checking", false) &&
             (bool_field(d, "native", false) || !text_field(d, "reason").empty());
    }, 30s, 100ms);
    const json d = delivery_of(name);
    note("delivery of " + name + ": " + d.dump());
    return text_field(d, "route") == "codex-queue" && bool_field(d, "native", false);
  }
  bool wait_receipt_state(const std::string& id, const std::string& state) {
    return testing::wait_until([&] { return text_field(receipt(id), "state") == state; }, 30s, 100ms);
  }
  // A copy of the native Codex answering `codex-cli 0.170.9`: a version whose queue the bridge never checked.
  fs::path unknown_version_codex() {
    const fs::path real = native_codex();
    if (real.empty()) return {};
    std::ifstream in(real, std::ios::binary);
    std::stringstream buf;
    buf << in.rdbuf();
    std::string bytes = buf.str();
    int patched = 0;
    for (auto pos = bytes.find("0.171.0"); pos != std::string::npos; pos = bytes.find("0.171.0", pos + 7)) {
      bytes.replace(pos, 7, "0.170.9");
      ++patched;
    }
    if (patched == 0) return {};
    const fs::path out = home_.path("old-codex") / "codex";
    fs::create_directories(out.parent_path());
    std::ofstream(out, std::ios::binary) << bytes;
    ::chmod(out.c_str(), 0755);
    return out;
  }

  testing::EnvOverrides env_;
  std::vector<testing::EnvOverrides> daemon_envs_;
  std::map<std::string, std::unique_ptr<TmuxSession>> tuis_;
};

// R-N2, R-N4, R-H1: an idle TUI (with Codex's daemon, which runs the hooks) is woken by a terminal message with
// nothing typed; the receipt says admitted via codex-queue but not processed; the Stop hook of that turn and of
// the next one never delivers it again.
TEST_F(CodexQueueE2eTest, IdleDaemonTuiIsWokenAndStopHookDoesNotRedeliver_RN2_RN4_RH1) {
  auto& t = daemon_tui("a");
  ASSERT_TRUE(attach_in_tui(t, "reviewer")) << t.screen();
  ASSERT_TRUE(wait_route_checked("reviewer")) << delivery_of("reviewer").dump();
  const std::string session = attachment_named("codex", "reviewer").value("session_id", "");

  const std::string id = send_from_terminal("reviewer", "Please review PR 11 via the queue");
  ASSERT_FALSE(id.empty());
  const auto woke = model_->wait_for([&](const ModelRequest& r) { return r.main_turn && r.last_user.find(id) != std::string::npos; });
  ASSERT_TRUE(woke) << model_->describe();
  EXPECT_NE(woke->last_user.find("Please review PR 11 via the queue"), std::string::npos) << woke->last_user;
  EXPECT_EQ(woke->last_user.find("<hook_prompt"), std::string::npos) << "came through the Stop hook: " << woke->last_user;

  ASSERT_TRUE(wait_receipt_state(id, "admitted")) << receipt(id).dump();
  const json r = receipt(id);
  EXPECT_EQ(text_field(r, "via"), "codex-queue") << r.dump();
  EXPECT_TRUE(r["processed_at"].is_null()) << r.dump();

  // The queued turn ends with a Stop hook; one more typed turn ends with another. Neither delivers it again.
  ASSERT_TRUE(t.wait_screen(kCodexComposerReady, 60s)) << t.screen();
  ASSERT_TRUE(say(t, "Something else now", [&] { return !turns_with("Something else now").empty(); })) << t.screen();
  // Never delivered again (its Stop hook asks about it by id, without the text: R-X3).
  EXPECT_EQ(turns_with("Please review PR 11 via the queue").size(), 1u) << model_->describe();
  EXPECT_TRUE(wait_pending("codex", session, 0));
  EXPECT_EQ(text_field(delivery_of("reviewer"), "route"), "codex-queue");
  // the TUI's daemon took it directly (thread/queue/add over its socket), without a `codex queue` run.
  EXPECT_NE(text_field(delivery_of("reviewer"), "last").find("app server"), std::string::npos)
      << delivery_of("reviewer").dump();
}

// R-N4: a busy session receives the message as its next turn; the running turn is not abandoned (it is answered
// once and its reply is in the conversation the delivery turn sends).
TEST_F(CodexQueueE2eTest, BusySessionGetsItAsTheNextTurn_RN4) {
  auto& t = daemon_tui("a");
  ASSERT_TRUE(attach_in_tui(t, "reviewer")) << t.screen();
  ASSERT_TRUE(wait_route_checked("reviewer")) << delivery_of("reviewer").dump();

  // Sent while the mock holds the long turn's answer: the session is busy when the message is queued.
  const auto sent_id = send_during_slow_turn("Long task please", "Long task finished: marker 4242", 8s, "reviewer",
                                             "Message for a busy session");
  t.type("Long task please");
  ASSERT_TRUE(t.wait_screen("Long task please", 10s));
  t.press("Enter");
  ASSERT_TRUE(testing::wait_until([&] { return !sent_id->empty(); }, 60s, 100ms));
  const std::string id = *sent_id;
  ASSERT_TRUE(wait_receipt_state(id, "admitted")) << receipt(id).dump();
  // Admitted while the long turn is still unanswered: no turn has started after it.
  EXPECT_EQ(model_->main_turns().size(), 1u) << model_->describe();

  const auto delivered = model_->wait_for([&](const ModelRequest& r) { return r.main_turn && r.last_user.find(id) != std::string::npos; });
  ASSERT_TRUE(delivered) << model_->describe();
  model_->on_main_turn(nullptr);
  EXPECT_EQ(turns_with("Long task please").size(), 1u) << "the running turn was re-sent: " << model_->describe();
  EXPECT_NE(delivered->conversation.find("Long task finished: marker 4242"), std::string::npos)
      << delivered->conversation;
  const auto long_turn = turns_with("Long task please");
  ASSERT_FALSE(long_turn.empty());
  EXPECT_GT(delivered->seq, long_turn[0].seq);
  EXPECT_EQ(turns_with("Message for a busy session").size(), 1u) << model_->describe();
}

// R-N2, R-H1: a `codex --no-daemon` TUI (it runs its hooks itself; `codex queue` writes the queue database under
// CODEX_HOME) also receives it with nothing typed.
TEST_F(CodexQueueE2eTest, NoDaemonTuiAlsoReceives_RN2_RH1) {
  auto& t = no_daemon_tui("a");
  ASSERT_TRUE(attach_in_tui(t, "reviewer")) << t.screen();
  ASSERT_TRUE(wait_route_checked("reviewer")) << delivery_of("reviewer").dump();
  const std::string id = send_from_terminal("reviewer", "No daemon here, still delivered");
  const auto woke = model_->wait_for([&](const ModelRequest& r) { return r.main_turn && r.last_user.find(id) != std::string::npos; });
  ASSERT_TRUE(woke) << model_->describe();
  EXPECT_EQ(woke->last_user.find("<hook_prompt"), std::string::npos) << woke->last_user;
  ASSERT_TRUE(wait_receipt_state(id, "admitted")) << receipt(id).dump();
  EXPECT_EQ(text_field(receipt(id), "via"), "codex-queue");
}

// R-H11, R-N1, R-B16: `/quit` in a TUI whose hooks run in Codex's daemon. The daemon keeps the thread loaded for
// about 60 s and only then runs SessionEnd, so the route is bound to the TUI process that shows the chat: its exit
// takes the attachment offline at once (name kept), a message sent then waits on the server (never queued into
// the daemon, never recorded admitted, no model turn), and the resumed TUI gets it once.
TEST_F(CodexQueueE2eTest, QuitDaemonTuiGoesOfflineAtOnceAndTheMessageWaits_RH11_RN1_RB16) {
  auto& t = daemon_tui("a");
  ASSERT_TRUE(attach_in_tui(t, "reviewer")) << t.screen();
  ASSERT_TRUE(wait_route_checked("reviewer")) << delivery_of("reviewer").dump();
  const std::string session = attachment_named("codex", "reviewer").value("session_id", "");
  ASSERT_FALSE(session.empty());

  t.type("/quit");
  ASSERT_TRUE(t.wait_screen("/quit", 10s)) << t.screen();
  t.press("Enter");
  ASSERT_TRUE(testing::wait_until([&] { return !t.running(); }, 30s, 100ms)) << t.screen();
  // Well inside the daemon's ~60 s: only the TUI's own end can have taken it offline.
  ASSERT_TRUE(testing::wait_until([&] { return attachment("codex", session).value("state", "") == "offline"; },
                                  20s, 100ms))
      << attachment("codex", session).dump();
  const json away = attachment("codex", session);
  EXPECT_EQ(away.value("agent_name", ""), "reviewer") << away.dump();
  EXPECT_FALSE(bool_field(away.value("delivery", json::object()), "native", true)) << away.dump();

  // Offline: the stream is closed, nothing is cached or pushed; the message is stored on the server only.
  const std::string id = send_from_terminal("reviewer", "Sent after quit: nobody is watching");
  ASSERT_FALSE(id.empty());
  const json waiting = receipt(id);
  EXPECT_EQ(text_field(waiting, "state"), "stored") << waiting.dump();
  EXPECT_NE(text_field(waiting, "via"), "codex-queue") << waiting.dump();
  EXPECT_TRUE(turns_with(id).empty()) << "a headless turn ran: " << model_->describe();

  // R-H11: `codex resume` plus the typed `agentworks resume` binds the new TUI; the message then arrives once.
  auto& back = tui("b", {codex_binary().string(), "resume", session}, env_);
  ASSERT_TRUE(say(back, "agentworks resume", [&] {
    return attachment("codex", session).value("state", "") == "attached";
  })) << back.screen();
  const auto delivered = model_->wait_for([&](const ModelRequest& r) {
    return r.main_turn && r.last_user.find(id) != std::string::npos;
  });
  ASSERT_TRUE(delivered) << model_->describe();
  ASSERT_TRUE(wait_receipt_state(id, "admitted")) << receipt(id).dump();
  ASSERT_TRUE(back.wait_screen(kCodexComposerReady, 60s)) << back.screen();
  EXPECT_EQ(turns_with("Sent after quit: nobody is watching").size(), 1u) << model_->describe();
}

// R-H11, R-N1: a `--no-daemon` TUI killed outright (SIGKILL: no SessionEnd can run) is seen ending by the same
// watch: the attachment goes offline and a message sent then waits on the server.
TEST_F(CodexQueueE2eTest, KilledNoDaemonTuiGoesOfflineWithoutSessionEnd_RH11_RN1) {
  if (native_codex().empty()) GTEST_SKIP() << "no native linux-x64 Codex binary";
  const fs::path native = fs::canonical(native_codex());  // what /proc/PID/exe shows
  auto& t = no_daemon_tui("a");
  ASSERT_TRUE(attach_in_tui(t, "reviewer")) << t.screen();
  ASSERT_TRUE(wait_route_checked("reviewer")) << delivery_of("reviewer").dump();
  const std::string session = attachment_named("codex", "reviewer").value("session_id", "");

  // The TUI: the native Codex running with this test's CODEX_HOME.
  const std::string home_var = "CODEX_HOME=" + *env_.at("CODEX_HOME");
  int killed = 0;
  std::error_code walk;
  for (fs::directory_iterator entry("/proc", walk), end; !walk && entry != end; entry.increment(walk)) {
    const std::string pid = entry->path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::error_code ec;
    if (fs::read_symlink(entry->path() / "exe", ec) != native || ec) continue;
    std::ifstream environ(entry->path() / "environ", std::ios::binary);
    bool ours = false;
    for (std::string var; std::getline(environ, var, '\0');) ours = ours || var == home_var;
    if (!ours) continue;
    if (::kill(std::stoi(pid), SIGKILL) == 0) ++killed;
  }
  ASSERT_EQ(killed, 1) << "expected exactly one Codex TUI of this test";
  ASSERT_TRUE(testing::wait_until([&] { return attachment("codex", session).value("state", "") == "offline"; },
                                  20s, 100ms))
      << attachment("codex", session).dump();
  EXPECT_EQ(attachment("codex", session).value("agent_name", ""), "reviewer");
  const std::string id = send_from_terminal("reviewer", "Sent after the kill");
  EXPECT_EQ(text_field(receipt(id), "state"), "stored") << receipt(id).dump();
  EXPECT_TRUE(turns_with(id).empty()) << model_->describe();
}

// R-N3: a Codex whose version the bridge does not know (here the real binary answering 0.170.9) keeps the route
// off with the reason in status; the Stop hook delivers.
TEST_F(CodexQueueE2eTest, UnknownCodexVersionFallsBackToStopHook_RN3) {
  const fs::path old = unknown_version_codex();
  if (old.empty()) GTEST_SKIP() << "no native linux-x64 Codex binary to copy";
  auto& t = tui("old", {old.string(), "--no-daemon"}, env_);
  ASSERT_TRUE(attach_in_tui(t, "reviewer")) << t.screen();
  EXPECT_FALSE(wait_route_checked("reviewer"));
  const json d = delivery_of("reviewer");
  EXPECT_EQ(text_field(d, "route"), "stop-hook") << d.dump();
  EXPECT_FALSE(bool_field(d, "native", true)) << d.dump();
  EXPECT_NE(text_field(d, "reason").find("0.170.9"), std::string::npos) << d.dump();
  const std::string session = attachment_named("codex", "reviewer").value("session_id", "");

  const std::string id = send_from_terminal("reviewer", "Old Codex gets it by the Stop hook");
  ASSERT_TRUE(wait_pending("codex", session, 1));
  ASSERT_TRUE(say(t, "Keep working", [&] { return !turns_with(id).empty(); })) << t.screen();
  // Once (a later Stop may ask about it by id, without its text: R-X3).
  const auto delivered = turns_with("Old Codex gets it by the Stop hook");
  ASSERT_EQ(delivered.size(), 1u) << model_->describe();
  EXPECT_NE(delivered[0].last_user.find("<hook_prompt"), std::string::npos) << delivered[0].last_user;
  EXPECT_NE(text_field(receipt(id), "via"), "codex-queue");
}

// R-N2, R-N3: `--native-remote` names a separate app-server that does not have this thread (another CODEX_HOME's
// daemon): `codex queue` refuses ("no rollout found for thread id"), the message goes back to pending, the route
// turns off with the reason and the Stop hook delivers it once.
TEST_F(CodexQueueE2eTest, WrongThreadFallsBackToStopHook_RN2_RN3) {
  // Another CODEX_HOME with the same mock provider (codex_env would rewrite this test's config.toml: copy it).
  testing::EnvOverrides other = env_;
  other["CODEX_HOME"] = home_.path("other-codex-home").string();
  fs::create_directories(home_.path("other-codex-home"));
  fs::copy_file(home_.path("codex-home") / "config.toml", home_.path("other-codex-home") / "config.toml");
  daemon_envs_.push_back(other);
  const auto started = run_codex(other, project_, {"app-server", "daemon", "start"}, 60s);
  note("other daemon: " + describe_run(started));
  std::error_code ec;
  const fs::path socket = fs::canonical(home_.path("other-codex-home") / "app-server-control" /
                                        "app-server-control.sock", ec);
  ASSERT_FALSE(ec) << describe_run(started);

  auto& t = no_daemon_tui("a");
  ASSERT_TRUE(attach_in_tui(t, "reviewer", " --native-remote unix://" + socket.string())) << t.screen();
  ASSERT_TRUE(wait_route_checked("reviewer")) << delivery_of("reviewer").dump();
  const std::string session = attachment_named("codex", "reviewer").value("session_id", "");

  const std::string id = send_from_terminal("reviewer", "Queued to the wrong server");
  ASSERT_TRUE(testing::wait_until([&] { return !bool_field(delivery_of("reviewer"), "native", true); }, 30s, 100ms))
      << delivery_of("reviewer").dump();
  const json off = delivery_of("reviewer");
  note("after refusal: " + off.dump());
  EXPECT_EQ(text_field(off, "route"), "stop-hook") << off.dump();
  EXPECT_NE(text_field(off, "reason").find("no rollout found for thread id " + session), std::string::npos) << off.dump();
  ASSERT_TRUE(wait_pending("codex", session, 1));
  EXPECT_TRUE(turns_with(id).empty()) << "the refused queue item ran: " << model_->describe();

  ASSERT_TRUE(say(t, "Keep working", [&] { return !turns_with(id).empty(); })) << t.screen();
  // Once (a later Stop may ask about it by id, without its text: R-X3).
  const auto delivered = turns_with("Queued to the wrong server");
  ASSERT_EQ(delivered.size(), 1u) << model_->describe();
  EXPECT_NE(delivered[0].last_user.find("<hook_prompt"), std::string::npos) << delivered[0].last_user;
}

}  // namespace
}  // namespace agentworks::e2e
