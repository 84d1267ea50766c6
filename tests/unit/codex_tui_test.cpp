// Which process shows a Codex chat and the watch on its end. With Codex's daemon the hooks run in the
// daemon, which outlives its TUI by about a minute and runs queued items headless meanwhile: the route is bound to
// the one Codex TUI using the daemon's CODEX_HOME (R-N1), never guessed among several (R-N3), and the end of that
// process is seen at once (R-H11: the attachment goes offline).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <uv.h>

#include <chrono>

#include "native/codex_tui.hpp"
#include "native/process_watch.hpp"
#include "support/uv_loop_test.hpp"

namespace agentworks::bridge::native {
namespace {

using namespace std::chrono_literals;

const std::string kDaemonExe =
    "/home/p/.codex/packages/app-server-daemon/releases/0.171.0-x86_64-unknown-linux-musl/bin/codex";
const std::string kNpmExe = "/usr/lib/node_modules/@openai/codex/vendor/x86_64-unknown-linux-musl/bin/codex";

CodexProcess proc(long pid, std::string exe, std::vector<std::string> args,
                  std::optional<std::string> home = std::string("/home/p/.codex")) {
  return CodexProcess{pid, std::to_string(pid * 10), std::move(exe), std::move(args), std::move(home)};
}
CodexProcess daemon() { return proc(100, kDaemonExe, {"app-server", "--listen", "unix://", "--managed-daemon"}); }

TEST(CodexTui, NoDaemonTuiIsItsOwnProvider_RN1) {
  const auto tui = proc(7, kNpmExe, {"--no-daemon"});
  const auto c = choose_codex_tui(tui, {proc(8, kNpmExe, {})});
  ASSERT_TRUE(c.tui);
  EXPECT_EQ(c.tui->pid, 7);
  EXPECT_EQ(c.tui->start, "70");
}

TEST(CodexTui, DaemonSessionIsShownByTheOneTuiOfItsCodexHome_RN1) {
  const std::vector<CodexProcess> running = {
      daemon(),
      proc(101, kDaemonExe, {"app-server", "daemon", "pid-update-loop"}),
      proc(102, kDaemonExe, {"queue", "--thread=01a2", "--message=hi"}),  // the bridge's own push
      proc(103, kNpmExe, {"--version"}),                                    // the bridge's probe
      proc(104, kNpmExe, {"exec", "do it"}),
      proc(105, kNpmExe, {"--no-daemon"}),                                  // its own threads, no daemon
      proc(106, kNpmExe, {}, std::string("/tmp/other-home")),               // another CODEX_HOME's daemon
      proc(107, kNpmExe, {}, std::nullopt),
      proc(108, "/usr/bin/node", {"/usr/lib/node_modules/.bin/codex"}),    // the npm launcher
      proc(109, kNpmExe, {"resume", "01a2"}),                               // the TUI
  };
  const auto c = choose_codex_tui(daemon(), running);
  ASSERT_TRUE(c.tui) << c.reason;
  EXPECT_EQ(c.tui->pid, 109);
  EXPECT_EQ(c.tui->start, "1090");
}

TEST(CodexTui, TwoTuisOnOneDaemonAreNeverGuessed_RN1_RN3) {
  const auto c = choose_codex_tui(daemon(), {daemon(), proc(200, kNpmExe, {}), proc(201, kNpmExe, {"-m", "gpt"})});
  EXPECT_FALSE(c.tui);
  EXPECT_NE(c.reason.find("2 Codex TUIs share the Codex daemon of CODEX_HOME /home/p/.codex"), std::string::npos)
      << c.reason;
}

// The bridge runs the provider's executable (`--version`, `queue`): a process that is not Codex — a wrapper
// or a test runner that ran the hook — is never run, and the route stays on the Stop hook.
TEST(CodexTui, AProviderThatIsNotCodexIsNeverRun_RN3) {
  const auto choice = choose_codex_tui(proc(201, "/usr/bin/python3", {"run-agent.py"}), {});
  EXPECT_FALSE(choice.tui.has_value());
  EXPECT_NE(choice.reason.find("python3, not a Codex executable"), std::string::npos) << choice.reason;
}

TEST(CodexTui, NoTuiMeansNoQueue_RN3) {
  const auto c = choose_codex_tui(daemon(), {daemon(), proc(300, kNpmExe, {}, std::nullopt)});
  EXPECT_FALSE(c.tui);
  EXPECT_NE(c.reason.find("no Codex TUI using CODEX_HOME /home/p/.codex runs"), std::string::npos) << c.reason;
}

TEST(CodexTui, CommandLinesThatAreNotTheTui) {
  EXPECT_TRUE(is_daemon_tui(proc(1, kNpmExe, {})));
  EXPECT_TRUE(is_daemon_tui(proc(1, kNpmExe, {"Fix the failing test"})));
  EXPECT_TRUE(is_daemon_tui(proc(1, kNpmExe, {"fork", "01a2"})));
  EXPECT_FALSE(is_daemon_tui(proc(1, kNpmExe, {"mcp-server"})));
  EXPECT_FALSE(is_daemon_tui(proc(1, kNpmExe, {"--help"})));
  EXPECT_FALSE(is_daemon_tui(proc(1, "/usr/bin/codex-wrapper", {})));
  EXPECT_TRUE(runs_app_server(daemon()));
  EXPECT_FALSE(runs_app_server(proc(1, kNpmExe, {"--no-daemon"})));
}

// The real /proc: this test process is not a Codex process.
TEST(CodexTui, FindsNothingForAProcessThatIsGone) {
  const auto c = find_codex_tui(0);
  EXPECT_FALSE(c.tui);
  EXPECT_FALSE(c.reason.empty());
}

class ProcessWatchTest : public agentworks::testing::UvLoopTest {
 protected:
  void TearDown() override {
    uv_run(&loop_, UV_RUN_DEFAULT);  // lets the closed handles go
    close_loop();
  }
  // Runs the loop until `done` or about 10 s.
  void run_until(const bool& done) {
    const auto until = std::chrono::steady_clock::now() + 10s;
    while (!done && std::chrono::steady_clock::now() < until) uv_run(&loop_, UV_RUN_NOWAIT), usleep(5000);
  }
  static pid_t child() {
    const pid_t pid = fork();
    if (pid == 0) {
      pause();
      _exit(0);
    }
    return pid;
  }
};

TEST_F(ProcessWatchTest, SeesTheEndOfTheProcess_RH11) {
  const pid_t pid = child();
  ASSERT_GT(pid, 0);
  const auto key = process::key_of(pid);
  ASSERT_TRUE(key);
  bool ended = false;
  int calls = 0;
  auto watch = std::make_unique<ProcessWatch>(&loop_, *key, [&] {
    ended = true;
    ++calls;
  });
  for (int i = 0; i < 5; ++i) uv_run(&loop_, UV_RUN_NOWAIT);
  EXPECT_FALSE(ended) << "the child still runs";
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  run_until(ended);
  EXPECT_TRUE(ended);
  watch.reset();
  uv_run(&loop_, UV_RUN_NOWAIT);
  EXPECT_EQ(calls, 1);
}

TEST_F(ProcessWatchTest, ARecycledKeyEndsAtOnce_RN1) {
  // This process's pid with another start time: not the process the key names.
  const auto self = process::key_of(::getpid());
  ASSERT_TRUE(self);
  bool ended = false;
  ProcessWatch watch(&loop_, process::ProcessKey{self->pid, self->start + "0"}, [&] { ended = true; });
  run_until(ended);
  EXPECT_TRUE(ended);
}

TEST_F(ProcessWatchTest, ADestroyedWatchNeverCalls) {
  const pid_t pid = child();
  ASSERT_GT(pid, 0);
  bool ended = false;
  {
    ProcessWatch watch(&loop_, *process::key_of(pid), [&] { ended = true; });
    uv_run(&loop_, UV_RUN_NOWAIT);
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  for (int i = 0; i < 20; ++i) uv_run(&loop_, UV_RUN_NOWAIT), usleep(5000);
  EXPECT_FALSE(ended);
}

}  // namespace
}  // namespace agentworks::bridge::native
