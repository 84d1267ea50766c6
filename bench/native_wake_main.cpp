// Native wake benchmark: from `agentworks messages send` (the real CLI process, started by
// E2eTest::send_from_terminal) to the mock model receiving the main-turn request that carries the message id,
// for an idle attached chat of
//   - Claude Code 2.1.332 in stream-json mode, woken through its session inbox (route "claude-inbox"), and
//   - the Codex 0.171.0 TUI in tmux, woken through `codex queue` (route "codex-queue"), and
//   - the Pi 0.73.1 TUI in tmux, woken through the agentworks Pi extension (route "pi-steer").
// The three in one run: --gtest_filter='ClaudeNativeWakeBench.SendToModelRequestThroughClaudeInbox:
// CodexNativeWakeBench.SendToModelRequestThroughCodexQueue:PiNativeWakeBench.*'.
// It reuses the e2e fixture (temp HOME, real server + bridge, mock model, the CLIs from tests/e2e/node_modules).
// Run by hand, one case at a time (docs/benchmarks.md "Native wake"); never registered with ctest.
// Samples: AGENTWORKS_BENCH_SAMPLES (default 20), after one unmeasured warm-up message. Sends start at least
// AGENTWORKS_BENCH_INTERVAL_MS apart (default 2200): the router's token bucket (8 pushes, refilling 0.5/s) turns
// faster sends into a burst that waits for tokens, which is not the idle wake this measures.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "driver/agent_env.hpp"
#include "driver/cli_locator.hpp"
#include "driver/codex_trust.hpp"
#include "driver/e2e_fixture.hpp"
#include "driver/json_fields.hpp"
#include "driver/tmux_session.hpp"
#include "support/crew_folder.hpp"
#include "testing/piped_process.hpp"
#include "latency_stats.hpp"

namespace agentworks::e2e {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

constexpr const char* kClaudeSession = "6f1c2a7e-0000-4000-8000-00000000b001";
constexpr const char* kCodexComposerReady = "Ask Codex to do anything";

long env_number(const char* name, long fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  const long n = std::strtol(v, nullptr, 10);
  return n > 0 ? n : fallback;
}

// Nearest rank, as bench/latency_stats.hpp computes p50/p99 (for the p95 it does not have).
double percentile_ms(std::vector<std::int64_t> samples, double p) {
  if (samples.empty()) return 0;
  std::sort(samples.begin(), samples.end());
  auto index = static_cast<std::size_t>(p * static_cast<double>(samples.size()) + 0.999999);
  index = std::clamp<std::size_t>(index, 1, samples.size());
  return static_cast<double>(samples[index - 1]) / 1e6;
}

void print_row(const char* what, const std::vector<std::int64_t>& samples) {
  const auto s = bench::summarize(samples);
  double min_ms = 0;
  if (!samples.empty()) min_ms = static_cast<double>(*std::min_element(samples.begin(), samples.end())) / 1e6;
  std::printf("  %-34s %4zu %8.1f %8.1f %8.1f %8.1f %8.1f\n", what, s.count, min_ms, s.p50_ms,
              percentile_ms(samples, 0.95), s.p99_ms, s.max_ms);
}

// `wake`: send start -> model request; `cli`: the `messages send` process alone (start -> exit); `pushed`: send
// start -> the bridge logged the push's outcome (Claude: frame written; Codex: `codex queue` exited).
void print_table(const std::string& route, const std::vector<std::int64_t>& wake, const std::vector<std::int64_t>& cli,
                 const std::vector<std::int64_t>& pushed, double warmup_ms, long interval_ms) {
  std::printf("\nagentworks-bench-native: route %s, sends >= %ld ms apart, warm-up %.1f ms (not counted)\n",
              route.c_str(), interval_ms, warmup_ms);
  std::printf("  %-34s %4s %8s %8s %8s %8s %8s   (ms)\n", "", "n", "min", "p50", "p95", "p99", "max");
  print_row("messages send -> model request", wake);
  print_row("  send process (start -> exit)", cli);
  print_row("  send -> bridge push done (log)", pushed);
  std::printf("  each (ms):");
  for (const auto ns : wake) std::printf(" %.0f", static_cast<double>(ns) / 1e6);
  std::printf("\n\n");
  std::fflush(stdout);
}

// Wall-clock ms since the epoch of the `index`-th (0-based) "native push to NAME (" line of the bridge log (its
// spdlog stamp `YYYY-MM-DDTHH:MM:SS.mmm+HH:MM`, written when the push's outcome is known), or -1.
std::int64_t push_logged_ms(const std::string& log, const std::string& name, std::size_t index) {
  const std::string needle = " native push to " + name + " (";
  std::size_t pos = 0;
  for (std::size_t seen = 0;; ++seen) {
    const auto hit = log.find(needle, pos);
    if (hit == std::string::npos) return -1;
    pos = hit + 1;
    if (seen != index) continue;
    const auto nl = log.rfind('\n', hit);
    const std::string line = log.substr(nl == std::string::npos ? 0 : nl + 1, 40);
    std::tm tm{};
    int ms = 0;
    char sign = '+';
    int tz_h = 0;
    int tz_m = 0;
    int used = 0;
    if (std::sscanf(line.c_str(), "%d-%d-%dT%d:%d:%d.%d%c%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                    &tm.tm_min, &tm.tm_sec, &ms, &sign, &tz_h, &used) != 9) {
      return -1;
    }
    // The offset's minutes: "+0000" or "+00:00".
    if (std::sscanf(line.c_str() + used, line[static_cast<std::size_t>(used)] == ':' ? ":%2d" : "%2d", &tz_m) != 1) {
      return -1;
    }
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    const std::int64_t offset_s = (sign == '-' ? -1 : 1) * (tz_h * 3600 + tz_m * 60);
    return (static_cast<std::int64_t>(timegm(&tm)) - offset_s) * 1000 + ms;
  }
}

std::int64_t wall_ms_now() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class NativeWakeBench : public E2eTest {
 protected:
  json delivery() { return attachment_named(provider_, "bench").value("delivery", json::object()); }
  // Waits until the bridge reports the native route `route` for agent "bench" (bridge status op), then checks
  // `agentworks status --agents --json` names it too.
  void expect_native_route(const std::string& route) {
    const bool ok = testing::wait_until(
        [&] {
          const json d = delivery();
          return text_field(d, "route") == route && bool_field(d, "native") && !bool_field(d, "checking");
        },
        30s, 50ms);
    ASSERT_TRUE(ok) << delivery().dump();
    const auto status = project_cli({"status", "--agents", "--json"}, env_);
    ASSERT_EQ(status.exit_code, 0) << status.describe();
    EXPECT_NE(status.out.find(route), std::string::npos) << status.out;
    std::printf("delivery before measuring: %s\n", delivery().dump().c_str());
  }

  // One sample: the time from starting `messages send` to the mock receiving the main turn carrying the
  // message id (its `received` stamp, taken when the request was read). The mock answers it with a reply
  // naming the sample; `turn_done(reply)` waits until that turn has finished so the next sample starts with an
  // idle session again. Returns -1 on failure.
  std::int64_t sample(int n, const std::function<bool(const std::string&)>& turn_done) {
    const std::string reply = "Bench reply " + std::to_string(n) + " done";
    model_->set_default_reply(reply);  // every main turn of this sample answers with it
    const auto t0 = std::chrono::steady_clock::now();
    const std::int64_t t0_wall_ms = wall_ms_now();
    const std::string id = send_from_terminal("bench", "Bench wake sample " + std::to_string(n));
    last_cli_ns_ = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count();
    if (id.empty()) return -1;
    const auto got = model_->wait_for(
        [&](const ModelRequest& r) { return r.main_turn && r.last_user.find(id) != std::string::npos; }, 60s);
    if (!got) return -1;
    if (!turn_done(reply)) return -1;
    const std::int64_t pushed = push_logged_ms(bridge_->log(), "bench", static_cast<std::size_t>(n));
    last_push_ns_ = pushed < 0 ? -1 : (pushed - t0_wall_ms) * 1000000;
    return std::chrono::duration_cast<std::chrono::nanoseconds>(got->received - t0).count();
  }

  void run_samples(const std::string& route, const std::function<bool(const std::string&)>& turn_done) {
    const std::int64_t warmup = sample(0, turn_done);
    ASSERT_GE(warmup, 0) << "the warm-up message did not wake the session\n" << model_->describe();
    std::vector<std::int64_t> samples;
    std::vector<std::int64_t> cli;
    std::vector<std::int64_t> pushed;  // send start -> the bridge logged the push's outcome (ms resolution)
    const auto n = static_cast<std::size_t>(env_number("AGENTWORKS_BENCH_SAMPLES", 20));
    const std::chrono::milliseconds interval(env_number("AGENTWORKS_BENCH_INTERVAL_MS", 2200));
    auto next_start = std::chrono::steady_clock::now() + interval;
    for (std::size_t i = 1; i <= n; ++i) {
      std::this_thread::sleep_until(next_start);
      next_start = std::chrono::steady_clock::now() + interval;
      const std::int64_t ns = sample(static_cast<int>(i), turn_done);
      ASSERT_GE(ns, 0) << "sample " << i << " failed\n" << model_->describe();
      samples.push_back(ns);
      cli.push_back(last_cli_ns_);
      if (last_push_ns_ >= 0) pushed.push_back(last_push_ns_);
    }
    EXPECT_EQ(text_field(delivery(), "route"), route.substr(0, route.find(' '))) << delivery().dump();
    if (pushed.empty()) {  // the log format changed: show the lines so the parser can be fixed
      const std::string log = bridge_->log();
      for (auto pos = log.find("native"); pos != std::string::npos; pos = log.find("native", pos + 1)) {
        const auto start = log.rfind('\n', pos);
        const auto end = log.find('\n', pos);
        std::printf("bridge log: %s\n", log.substr(start == std::string::npos ? 0 : start + 1,
                                                   end == std::string::npos ? std::string::npos : end - start - 1).c_str());
        pos = end == std::string::npos ? log.size() : end;
        if (pos >= log.size()) break;
      }
    }
    print_table(route, samples, cli, pushed, static_cast<double>(warmup) / 1e6, static_cast<long>(interval.count()));
  }

  std::string provider_;
  testing::EnvOverrides env_;
  std::int64_t last_cli_ns_ = 0;
  std::int64_t last_push_ns_ = -1;
};

// Claude Code in stream-json mode: stdout result lines count the turns (a pushed turn ends with one too).
class ClaudeStream {
 public:
  ClaudeStream(const testing::EnvOverrides& env, const std::filesystem::path& project,
               const std::filesystem::path& log_dir)
      : stderr_path_(log_dir / "claude-bench.err") {
    std::filesystem::create_directories(log_dir);
    process_ = std::make_unique<testing::PipedProcess>(
        std::vector<std::string>{claude_binary().string(), "-p", "--input-format", "stream-json", "--output-format",
                                 "stream-json", "--verbose", "--session-id", kClaudeSession},
        env, project, stderr_path_);
  }
  bool send(const std::string& prompt) {
    return process_->write_line(json{{"type", "user"}, {"message", {{"role", "user"}, {"content", prompt}}}}.dump());
  }
  // Reads stdout until one more result line than before (false on timeout or exit).
  bool next_result(std::chrono::milliseconds timeout = 60s) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      const auto line = process_->read_line(deadline);
      if (!line) return false;
      const json event = json::parse(*line, nullptr, false);
      if (event.is_object() && event.value("type", "") == "result") return true;
    }
  }
  std::string transcript() const {
    return "stdout:\n" + process_->transcript() + "\nstderr:\n" + testing::read_file(stderr_path_);
  }

 private:
  std::filesystem::path stderr_path_;
  std::unique_ptr<testing::PipedProcess> process_;
};

class ClaudeNativeWakeBench : public NativeWakeBench {
 protected:
  void SetUp() override {
    AW_E2E_NEED_CLI(claude_binary(), "claude");
    E2eTest::SetUp();
    provider_ = "claude";
    install_for("claude", env_);
  }
  void TearDown() override {
    if (HasFailure() && chat_) note(chat_->transcript());
    chat_.reset();
    E2eTest::TearDown();
  }
  std::unique_ptr<ClaudeStream> chat_;
};

// target p50 under 300 ms.
TEST_F(ClaudeNativeWakeBench, SendToModelRequestThroughClaudeInbox) {
  chat_ = std::make_unique<ClaudeStream>(env_, project_, home_.path("claude-logs"));
  ASSERT_TRUE(chat_->send("/agentworks attach bench \"Bench\""));
  ASSERT_TRUE(chat_->next_result()) << "the attach turn did not end";
  ASSERT_TRUE(testing::wait_until([&] { return attachment_named("claude", "bench").value("state", "") == "attached"; }))
      << "no attachment";
  expect_native_route("claude-inbox");
  if (HasFailure()) return;
  run_samples("claude-inbox", [&](const std::string&) { return chat_->next_result(); });
}

// R-D2: a delegated call's outcome notice against a plain message, in the same run and the same idle chat. Each
// round: a message (send start -> model request, as above), then a call of a function whose last act writes the
// wall-clock time (execution end -> the model request carrying "call_outcome of function call ID"). The second
// is an upper bound of "outcome committed -> offered": the commit follows the execution's end. Pushes are spaced
// AGENTWORKS_BENCH_INTERVAL_MS apart, as above (the router's token bucket).
TEST_F(ClaudeNativeWakeBench, CallOutcomeNoticeBesideAMessage) {
  testing::CrewFolder crew(std::filesystem::weakly_canonical(home_.path("bench-crew")));
  crew.declare({testing::CrewFolder::function(
      "done", crew.script("done.sh", "echo done\ndate +%s%N > \"$FUNCTION_OUTPUT_DIR/ended\""), json::object())});
  cli_ok(owner(), {"crews", "register", "bc", "--dir", crew.dir().string()});
  chat_ = std::make_unique<ClaudeStream>(env_, project_, home_.path("claude-logs"));
  ASSERT_TRUE(chat_->send("/agentworks attach bench \"Bench\""));
  ASSERT_TRUE(chat_->next_result()) << "the attach turn did not end";
  ASSERT_TRUE(testing::wait_until([&] { return attachment_named("claude", "bench").value("state", "") == "attached"; }));
  expect_native_route("claude-inbox");
  if (HasFailure()) return;
  const auto turn_done = [&](const std::string&) { return chat_->next_result(); };
  // One notice: execution end (the script's wall clock) -> the model request that carries it.
  const auto notice_sample = [&](int n) -> std::int64_t {
    model_->set_default_reply("Bench notice " + std::to_string(n) + " done");
    const json call = http_json(owner_http(), "POST", "/v1/crews/bc/calls",
                                json{{"function", "done"}, {"arguments", json::object()}, {"notify", "agent:bench"}}.dump(),
                                201);
    const std::string id = call.at("call_id").get<std::string>();
    const auto got = model_->wait_for(
        [&](const ModelRequest& r) {
          return r.main_turn && r.last_user.find("call_outcome of function call " + id) != std::string::npos;
        },
        60s);
    if (!got) return -1;
    const auto steady_now = std::chrono::steady_clock::now();
    const std::int64_t wall_now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                         std::chrono::system_clock::now().time_since_epoch()).count();
    const std::int64_t received_wall_ns =
        wall_now_ns - std::chrono::duration_cast<std::chrono::nanoseconds>(steady_now - got->received).count();
    const auto ended_file = crew.dir() / ".calls" / id / "ended";
    const std::string ended = testing::read_file(ended_file);
    if (ended.empty() || !turn_done("")) return -1;
    return received_wall_ns - std::stoll(ended);
  };
  ASSERT_GE(sample(0, turn_done), 0) << "the warm-up message did not wake the session\n" << model_->describe();
  const std::chrono::milliseconds interval(env_number("AGENTWORKS_BENCH_INTERVAL_MS", 2200));
  std::this_thread::sleep_for(interval);
  ASSERT_GE(notice_sample(0), 0) << "the warm-up notice did not wake the session\n" << model_->describe();
  std::vector<std::int64_t> messages;
  std::vector<std::int64_t> notices;
  const auto n = static_cast<int>(env_number("AGENTWORKS_BENCH_SAMPLES", 20));
  for (int i = 1; i <= n; ++i) {
    std::this_thread::sleep_for(interval);
    const std::int64_t m = sample(i, turn_done);
    ASSERT_GE(m, 0) << "message " << i << " failed\n" << model_->describe();
    messages.push_back(m);
    std::this_thread::sleep_for(interval);
    const std::int64_t c = notice_sample(i);
    ASSERT_GE(c, 0) << "notice " << i << " failed\n" << model_->describe();
    notices.push_back(c);
  }
  std::printf("\nagentworks-bench-native: route claude-inbox, a message and a call notice per round, pushes >= %ld ms apart\n",
              static_cast<long>(interval.count()));
  std::printf("  %-34s %4s %8s %8s %8s %8s %8s   (ms)\n", "", "n", "min", "p50", "p95", "p99", "max");
  print_row("messages send -> model request", messages);
  print_row("execution end -> notice request", notices);
  const double added = bench::summarize(notices).p50_ms - bench::summarize(messages).p50_ms;
  std::printf("  the notice's p50 minus the message's p50: %+.1f ms\n\n", added);
}

class CodexNativeWakeBench : public NativeWakeBench {
 protected:
  void SetUp() override {
    AW_E2E_NEED_CLI(codex_binary(), "codex");
    if (!tmux_available()) GTEST_SKIP() << "tmux not installed";
    E2eTest::SetUp();
    provider_ = "codex";
    install_for("codex", env_);
  }
  void TearDown() override {
    if (HasFailure() && tui_) note("--- screen ---\n" + tui_->screen());
    tui_.reset();
    if (daemon_) stop_daemon();
    E2eTest::TearDown();
  }
  // Codex's app-server daemon outlives its TUI: stop it and its helpers (as codex_queue_e2e_test.cpp does).
  void stop_daemon() {
    run_codex(env_, project_, {"app-server", "daemon", "stop"}, 30s);
    const auto it = env_.find("CODEX_HOME");
    if (it == env_.end() || !it->second) return;
    const std::string home = *it->second + "/";
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
      const std::string pid = entry.path().filename().string();
      if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
      std::error_code ec;
      const auto exe = std::filesystem::read_symlink(entry.path() / "exe", ec).string();
      if (!ec && exe.rfind(home, 0) == 0) ::kill(std::stoi(pid), SIGKILL);  // started by this run's Codex
    }
  }
  // The turn's reply is shown, the composer is back and no turn runs ("esc to interrupt" shows while one does),
  // on two polls 300 ms apart: the Stop hook has run and Codex is idle again.
  bool composer_ready(const std::string& reply = "") {
    auto idle = [&] {
      const std::string s = tui_->screen();
      return s.find(reply) != std::string::npos && s.find(kCodexComposerReady) != std::string::npos &&
             s.find("esc to interrupt") == std::string::npos;
    };
    for (int stable = 0; stable < 2;) {
      if (!testing::wait_until(idle, 60s, 50ms)) return false;
      ++stable;
      if (stable < 2) std::this_thread::sleep_for(300ms);
    }
    return true;
  }
  // Starts the TUI (`codex`, or `codex --no-daemon`), attaches it by typing, measures.
  void run(bool with_daemon) {
    daemon_ = with_daemon;
    const auto dir = home_.path("tmux-bench");
    std::filesystem::create_directories(dir);
    std::vector<std::string> argv{codex_binary().string()};
    if (!with_daemon) argv.emplace_back("--no-daemon");
    tui_ = std::make_unique<TmuxSession>(dir, env_, project_, argv);
    ASSERT_TRUE(tui_->wait_screen(kCodexComposerReady, 60s)) << tui_->screen();
    const std::string attach = "agentworks attach bench \"Bench\"";
    tui_->type(attach);
    ASSERT_TRUE(tui_->wait_screen(attach, 10s)) << tui_->screen();
    tui_->press("Enter");
    ASSERT_TRUE(testing::wait_until(
        [&] {
          return attachment_named("codex", "bench").value("state", "") == "attached" &&
                 tui_->screen().find("Blocked by hook") != std::string::npos;
        },
        60s, 100ms))
        << tui_->screen();
    ASSERT_TRUE(composer_ready()) << tui_->screen();
    expect_native_route("codex-queue");
    if (HasFailure()) return;
    run_samples(with_daemon ? "codex-queue (TUI with its app-server daemon)" : "codex-queue (TUI --no-daemon)",
                [&](const std::string& reply) { return composer_ready(reply); });
  }
  std::unique_ptr<TmuxSession> tui_;
  bool daemon_ = false;
};

// target p50 under 1 s. `codex` as a person starts it: the TUI with its app-server daemon, which runs
// the hooks and takes `codex queue` items at once.
TEST_F(CodexNativeWakeBench, SendToModelRequestThroughCodexQueue) { run(true); }

// The same with `codex --no-daemon` (as tests/e2e/codex_e2e_test.cpp runs it): `codex queue` writes the queue
// database under CODEX_HOME and the TUI picks the item up from there.
TEST_F(CodexNativeWakeBench, SendToModelRequestThroughCodexQueueNoDaemon) { run(false); }

class PiNativeWakeBench : public NativeWakeBench {
 protected:
  void SetUp() override {
    AW_E2E_NEED_CLI(pi_binary(), "pi");
    E2eTest::SetUp();
    provider_ = "pi";
    install_for("pi", env_);
  }
  void TearDown() override {
    if (HasFailure() && tui_) note("--- screen ---\n" + tui_->screen());
    tui_.reset();
    E2eTest::TearDown();
  }
  // The turn's reply is on the screen, and the screen stays the same over two polls 300 ms apart: Pi's run has
  // ended (its spinner line changes while a run goes on) and the extension's turn-end delivery has answered.
  bool turn_shown(const std::string& reply) {
    if (!testing::wait_until([&] { return tui_->screen().find(reply) != std::string::npos; }, 60s, 50ms)) return false;
    std::string before = tui_->screen();
    for (int same = 0; same < 2;) {
      std::this_thread::sleep_for(300ms);
      const std::string now = tui_->screen();
      same = now == before ? same + 1 : 0;
      before = now;
    }
    return true;
  }
  std::unique_ptr<TmuxSession> tui_;
};

// The measure: send -> the model request of an idle Pi session through the extension's steer, beside
// Claude's inbox and Codex's queue in the same run (see the filter at the top).
TEST_F(PiNativeWakeBench, SendToModelRequestThroughPiSteer) {
  const auto dir = home_.path("tmux-bench");
  std::filesystem::create_directories(dir);
  tui_ = std::make_unique<TmuxSession>(dir, env_, project_, pi_argv());
  ASSERT_TRUE(tui_->wait_screen("mock-model", 60s)) << tui_->screen();
  const std::string attach = "/agentworks attach bench \"Bench\"";
  tui_->type(attach);
  ASSERT_TRUE(tui_->wait_screen(attach, 10s)) << tui_->screen();
  tui_->press("Enter");
  ASSERT_TRUE(testing::wait_until(
      [&] { return attachment_named("pi", "bench").value("state", "") == "attached"; }, 60s, 100ms))
      << tui_->screen();
  expect_native_route("pi-steer");
  if (HasFailure()) return;
  run_samples("pi-steer", [&](const std::string& reply) { return turn_shown(reply); });
}

}  // namespace
}  // namespace agentworks::e2e
