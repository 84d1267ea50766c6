// The Codex queue adapter against fake `codex` programs: shell scripts written to a temp dir that log
// their argv and CODEX_HOME and answer like Codex 0.171.0 does (docs/native-routes.md, "Codex queue").
// R-N2: exit 0 -> accepted, a definite refusal -> refused, anything else -> ambiguous, never rerun.
// R-N3: only a known version with the queue command turns the route on.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "native/codex_queue.hpp"
#include "support/uv_loop_test.hpp"
#include "testing/temp_home.hpp"

namespace agentworks::bridge::native {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr const char* kThread = "01a22e85-075a-7993-97a3-0429c598ac08";

// What Codex 0.171.0 prints for `queue --help` (abridged) and for an unknown subcommand with --help.
constexpr const char* kQueueHelp =
    "Queue a message for an existing session\n\nUsage: codex queue [OPTIONS] --thread <THREAD> --message <TEXT>\n\n"
    "Options:\n      --thread <THREAD>\n          Session UUID or exact session name\n      --message <TEXT>\n";
constexpr const char* kTopHelp =
    "Codex CLI\n\nIf no subcommand is specified, options will be forwarded to the interactive CLI.\n\n"
    "Usage: codex [OPTIONS] [PROMPT]\n       codex [OPTIONS] <COMMAND> [ARGS]\n";

// One shell word: single quotes, embedded ones as '\''.
std::string sq(const std::string& s) {
  std::string out = "'";
  for (const char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class CodexQueueTest : public agentworks::testing::UvLoopTest {
 protected:
  void SetUp() override {
    dir_ = agentworks::testing::make_temp_dir("codex_queue_test_", "/tmp");
    UvLoopTest::SetUp();
  }
  void TearDown() override {
    close_loop();
    if (std::getenv("AGENTWORKS_KEEP_TEST_DIRS") == nullptr) fs::remove_all(dir_);
  }

  // A fake codex: logs each run (argv NUL-separated into runs/N.args, CODEX_HOME into runs/N.home), then BODY.
  fs::path fake_codex(const std::string& body) {
    const fs::path script = dir_ / "bin" / "codex";
    fs::create_directories(script.parent_path());
    fs::create_directories(dir_ / "runs");
    std::ofstream(script) << "#!/bin/sh\n"
                             "n=$(ls '"
                          << (dir_ / "runs").string()
                          << "' | grep -c args)\n"
                             "log='"
                          << (dir_ / "runs").string()
                          << "'/$n\n"
                             "for a in \"$0\" \"$@\"; do printf '%s\\0' \"$a\"; done > \"$log.args\"\n"
                             "printf '%s' \"${CODEX_HOME-<unset>}\" > \"$log.home\"\n"
                          << body << "\n";
    ::chmod(script.c_str(), 0755);
    return script;
  }
  // A fake that answers --version and queue --help, and runs QUEUE_BODY for `queue --thread=…`.
  fs::path fake_queue(const std::string& queue_body, const std::string& version = "codex-cli 0.171.0") {
    return fake_codex("case \"$1\" in\n"
                      "  --version) echo '" + version + "' ;;\n"
                      "  queue) if [ \"$2\" = --help ]; then printf '%s' '" + std::string(kQueueHelp) +
                      "'; exit 0; fi\n" + queue_body + "\n ;;\n"
                      "esac\n");
  }

  int runs() const {
    int n = 0;
    if (!fs::exists(dir_ / "runs")) return 0;
    for (const auto& e : fs::directory_iterator(dir_ / "runs")) n += e.path().extension() == ".args" ? 1 : 0;
    return n;
  }
  std::vector<std::string> argv_of(int run) const {
    const std::string raw = read_file(dir_ / "runs" / (std::to_string(run) + ".args"));
    std::vector<std::string> out;
    std::size_t pos = 0;
    while (pos < raw.size()) {
      const auto nul = raw.find('\0', pos);
      out.push_back(raw.substr(pos, nul - pos));
      pos = nul + 1;
    }
    return out;
  }
  std::string home_of(int run) const { return read_file(dir_ / "runs" / (std::to_string(run) + ".home")); }

  CodexBinding binding(const fs::path& bin) const { return {kThread, bin.string(), (dir_ / "ch").string(), ""}; }

  PushResult push(const CodexBinding& b, const std::string& text, CodexRunLimits limits = {}) {
    std::optional<PushResult> result;
    bool returned = false;
    push_codex(
        &loop_, b, text,
        [&](PushResult r) {
          EXPECT_TRUE(returned) << "done must not run inside push_codex";
          EXPECT_FALSE(result.has_value()) << "done must run once";
          result = std::move(r);
        },
        limits);
    returned = true;
    uv_run(&loop_, UV_RUN_DEFAULT);
    EXPECT_TRUE(result.has_value());
    return result.value_or(PushResult{});
  }

  struct Probe {
    bool ok = false;
    std::string version;
    std::string reason;
  };
  Probe probe(const CodexBinding& b, CodexRunLimits limits = {}) {
    Probe p;
    int calls = 0;
    probe_codex(
        &loop_, b,
        [&](bool ok, std::string version, std::string reason) {
          ++calls;
          p = {ok, std::move(version), std::move(reason)};
        },
        limits);
    EXPECT_EQ(calls, 0) << "done must not run inside probe_codex";
    uv_run(&loop_, UV_RUN_DEFAULT);
    EXPECT_EQ(calls, 1);
    return p;
  }

  fs::path dir_;
};

// ---- probe (R-N3) ----

TEST_F(CodexQueueTest, ProbeAcceptsKnownVersionWithQueueCommand) {
  const auto bin = fake_queue("exit 0");
  const auto p = probe(binding(bin));
  EXPECT_TRUE(p.ok) << p.reason;
  EXPECT_EQ(p.version, "0.171.0");
  EXPECT_EQ(argv_of(0), (std::vector<std::string>{bin.string(), "--version"}));
  EXPECT_EQ(argv_of(1), (std::vector<std::string>{bin.string(), "queue", "--help"}));
  EXPECT_EQ(home_of(0), (dir_ / "ch").string());
}

TEST_F(CodexQueueTest, ProbeRefusesAnUnknownVersion) {
  const auto p = probe(binding(fake_queue("exit 0", "codex-cli 0.150.0")));
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(p.version, "0.150.0");
  EXPECT_NE(p.reason.find("0.150.0"), std::string::npos) << p.reason;
  EXPECT_EQ(runs(), 1) << "an unknown version is not asked for queue --help";
  EXPECT_FALSE(probe(binding(fake_queue("exit 0", "codex-cli 0.172.0"))).ok);
}

TEST_F(CodexQueueTest, ProbeRefusesAKnownVersionWithoutTheQueueCommand) {
  // An unknown subcommand is taken as the TUI's prompt: the top-level help, exit 0.
  const auto bin = fake_codex("case \"$1\" in --version) echo 'codex-cli 0.171.0' ;; *) printf '%s' '" +
                              std::string(kTopHelp) + "' ;; esac");
  const auto p = probe(binding(bin));
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(p.reason, "Codex 0.171.0 has no queue command");
}

TEST_F(CodexQueueTest, ProbeRefusesGarbageMissingBinaryAndHangs) {
  EXPECT_FALSE(probe(binding(fake_codex("echo 'something else 1.2.3'"))).ok);
  const auto missing = probe({kThread, (dir_ / "nope" / "codex").string(), "", ""});
  EXPECT_FALSE(missing.ok);
  EXPECT_NE(missing.reason.find("cannot run"), std::string::npos) << missing.reason;
  EXPECT_FALSE(probe({kThread, "codex", "", ""}).ok) << "a bare name is never looked up on PATH";
  CodexRunLimits quick;
  quick.probe_timeout = 200ms;
  const auto hung = probe(binding(fake_codex("exec sleep 30")), quick);
  EXPECT_FALSE(hung.ok);
}

// ---- push (R-N2) ----

TEST_F(CodexQueueTest, ExitZeroIsAcceptedAndArgvIsExactWithRemote) {
  const auto bin = fake_queue(
      "echo 'Queued message 01a22e85-73c0-7c10-ae52-d384af20dedd for thread 01a22e85-075a-7993-97a3-0429c598ac08.'");
  auto b = binding(bin);
  b.remote = "unix:///run/user/1000/codex.sock";
  const auto r = push(b, "hello");
  EXPECT_EQ(r.outcome, PushOutcome::accepted) << r.detail;
  EXPECT_NE(r.detail.find("Queued message"), std::string::npos) << r.detail;
  ASSERT_EQ(runs(), 1);
  EXPECT_EQ(argv_of(0), (std::vector<std::string>{bin.string(), "queue", std::string("--thread=") + kThread,
                                                  "--message=hello", "--remote=unix:///run/user/1000/codex.sock"}));
  EXPECT_EQ(home_of(0), (dir_ / "ch").string());
}

TEST_F(CodexQueueTest, TextIsPassedVerbatimNeverThroughAShell) {
  const auto bin = fake_queue("exit 0");
  const fs::path marker = dir_ / "pwned";
  const std::string text = "--leading dash \"double\" 'single' `touch " + marker.string() + "` $(touch " +
                           marker.string() + ") ; | & \\ $HOME\nsecond line\n\ttab é";
  const auto r = push(binding(bin), text);
  EXPECT_EQ(r.outcome, PushOutcome::accepted) << r.detail;
  const auto argv = argv_of(0);
  ASSERT_EQ(argv.size(), 4U);
  EXPECT_EQ(argv[3], "--message=" + text);
  EXPECT_FALSE(fs::exists(marker));
}

TEST_F(CodexQueueTest, CodexHomeIsTheSessionsOrUnset) {
  const auto bin = fake_queue("exit 0");
  ::setenv("CODEX_HOME", "/the/bridges/own", 1);
  auto b = binding(bin);
  b.codex_home = "/the/sessions/home";
  EXPECT_EQ(push(b, "a").outcome, PushOutcome::accepted);
  b.codex_home = "";
  EXPECT_EQ(push(b, "b").outcome, PushOutcome::accepted);
  ::unsetenv("CODEX_HOME");
  EXPECT_EQ(home_of(0), "/the/sessions/home");
  EXPECT_EQ(home_of(1), "<unset>") << "a session with Codex's default home must not get the bridge's CODEX_HOME";
}

TEST_F(CodexQueueTest, DefiniteRefusalsAreRefused) {
  // Outputs as Codex 0.171.0 prints them (docs/native-routes.md).
  const std::vector<std::pair<int, std::string>> cases = {
      {1, "Error: failed to queue session message: thread/queue/add failed: failed to read thread: invalid "
          "thread-store request: no rollout found for thread id " + std::string(kThread) + " (code -32603)"},
      {1, "Error: thread not found: " + std::string(kThread)},
      {2, "error: unexpected argument '--bogus' found\n\nUsage: codex queue --thread <THREAD> --message <TEXT>"},
      {1, "Error: failed to connect to remote app server: failed to connect to remote app server at "
          "`unix:///x`: No such file or directory (os error 2)"},
  };
  for (const auto& [code, err] : cases) {
    fs::remove_all(dir_ / "runs");
    const auto bin = fake_queue("echo 'WARNING: proceeding, even though we could not create PATH aliases' >&2\n"
                                "printf '%s\\n\\nStack backtrace:\\n   0: <unknown>\\n' " + sq(err) + " >&2; exit " +
                                std::to_string(code));
    const auto r = push(binding(bin), "hi");
    EXPECT_EQ(r.outcome, PushOutcome::refused) << err;
    EXPECT_EQ(r.detail.find("WARNING"), std::string::npos) << r.detail;
    EXPECT_NE(r.detail.find(err.substr(0, 20)), std::string::npos) << r.detail;
    EXPECT_EQ(runs(), 1);
  }
}

TEST_F(CodexQueueTest, UnknownFailuresAreAmbiguousAndNeverRerun) {
  for (const std::string body : {"echo 'Error: database is locked' >&2; exit 1", "exit 3",
                                 "echo 'error: unexpected argument' >&2; exit 7", "kill -TERM $$"}) {
    fs::remove_all(dir_ / "runs");
    const auto r = push(binding(fake_queue(body)), "hi");
    EXPECT_EQ(r.outcome, PushOutcome::ambiguous) << body << " -> " << r.detail;
    EXPECT_EQ(runs(), 1) << body;
  }
}

TEST_F(CodexQueueTest, TimeoutKillsAndIsAmbiguous) {
  // The sleep is a grandchild holding stdout open after its shell is killed: the run still ends.
  CodexRunLimits quick;
  quick.push_timeout = 300ms;
  const auto r = push(binding(fake_queue("echo started; sleep 30")), "hi", quick);
  EXPECT_EQ(r.outcome, PushOutcome::ambiguous) << r.detail;
  EXPECT_NE(r.detail.find("did not finish"), std::string::npos) << r.detail;
  EXPECT_EQ(runs(), 1);
}

TEST_F(CodexQueueTest, OutputIsBounded) {
  CodexRunLimits small;
  small.output_limit = 100;
  const auto r = push(binding(fake_queue("i=0; while [ $i -lt 2000 ]; do echo 'Queued message xxxxxxxxxxxxxxxxxxxxxxxxx'; "
                                         "i=$((i+1)); done")),
                      "hi", small);
  EXPECT_EQ(r.outcome, PushOutcome::accepted) << r.detail;
  EXPECT_LE(r.detail.size(), 100U);
}

TEST_F(CodexQueueTest, BadBindingsAreRefusedWithoutRunningAnything) {
  const auto bin = fake_queue("exit 0");
  auto name = binding(bin);
  name.thread_id = "my session";  // --thread also takes a session name: never target by name
  EXPECT_EQ(push(name, "hi").outcome, PushOutcome::refused);
  auto relative = binding(bin);
  relative.remote = "unix://relative/sock";
  EXPECT_EQ(push(relative, "hi").outcome, PushOutcome::refused);
  auto bare = binding(bin);
  bare.codex_bin = "codex";
  EXPECT_EQ(push(bare, "hi").outcome, PushOutcome::refused);
  EXPECT_EQ(push(binding(bin), "").outcome, PushOutcome::refused);
  EXPECT_EQ(push(binding(bin), std::string("a\0b", 3)).outcome, PushOutcome::refused);
  EXPECT_EQ(runs(), 0);
  EXPECT_EQ(push({kThread, (dir_ / "gone").string(), "", ""}, "hi").outcome, PushOutcome::refused)
      << "a binary that cannot be started queued nothing";
}

// ---- pure parts ----

TEST(CodexQueuePure, ValidRemote) {
  EXPECT_TRUE(valid_remote("unix:///run/user/1000/codex.sock"));
  EXPECT_TRUE(valid_remote("unix:///tmp/a"));
  for (const char* bad : {"", "unix://", "unix:///", "unix://relative/x", "unix://~/x", "unix:///a/../b",
                          "unix:///a/./b", "unix:///a//b", "unix:///a/", "ws://127.0.0.1:1", "wss://h:1",
                          "http://x", "unix:/a", "UNIX:///a", "unix:///a\nb", " unix:///a"}) {
    EXPECT_FALSE(valid_remote(bad)) << bad;
  }
  EXPECT_TRUE(valid_remote("unix:///" + std::string(106, 'a')));  // 107 bytes of path + NUL fit sun_path
  EXPECT_FALSE(valid_remote("unix:///" + std::string(107, 'a')));
}

TEST(CodexQueuePure, Versions) {
  EXPECT_EQ(parse_codex_version("codex-cli 0.171.0\n"), "0.171.0");
  EXPECT_EQ(parse_codex_version("codex-cli 0.171.0"), "0.171.0");
  EXPECT_EQ(parse_codex_version("codex-cli 0.171.0-alpha.1\n"), std::nullopt);
  EXPECT_EQ(parse_codex_version("codex 0.171.0\n"), std::nullopt);
  EXPECT_EQ(parse_codex_version("WARNING\ncodex-cli 0.171.0\n"), std::nullopt);
  EXPECT_TRUE(codex_version_known("0.171.0"));
  EXPECT_TRUE(codex_version_known("0.171.5"));
  EXPECT_FALSE(codex_version_known("0.170.9"));
  EXPECT_FALSE(codex_version_known("0.172.0"));
  EXPECT_FALSE(codex_version_known("1.0.0"));
  EXPECT_FALSE(codex_version_known("x"));
  EXPECT_TRUE(has_queue_command(kQueueHelp));
  EXPECT_FALSE(has_queue_command(kTopHelp));
}

TEST(CodexQueuePure, ThreadIds) {
  EXPECT_TRUE(valid_thread_id(kThread));
  EXPECT_FALSE(valid_thread_id("01a22e85-075a-7993-97a3-0429c598ac0"));
  EXPECT_FALSE(valid_thread_id("my-session"));
  EXPECT_FALSE(valid_thread_id(std::string("--") + kThread));
}

TEST(CodexQueuePure, Classification) {
  QueueRunEnd ok;
  ok.out = "Queued message X for thread Y.\n";
  EXPECT_EQ(classify_queue_run(ok).outcome, PushOutcome::accepted);
  QueueRunEnd killed;
  killed.timed_out = true;
  killed.term_signal = 9;
  EXPECT_EQ(classify_queue_run(killed).outcome, PushOutcome::ambiguous);
  QueueRunEnd not_started;
  not_started.started = false;
  not_started.spawn_error = UV_ENOENT;
  EXPECT_EQ(classify_queue_run(not_started).outcome, PushOutcome::refused);
  QueueRunEnd odd_usage;  // a usage marker with an exit code clap never uses
  odd_usage.exit_status = 101;
  odd_usage.err = "Usage: codex queue";
  EXPECT_EQ(classify_queue_run(odd_usage).outcome, PushOutcome::ambiguous);
}

}  // namespace
}  // namespace agentworks::bridge::native
