// Agent runner benchmark: what the platform adds around one agent execution against the mock model,
// with the real Claude Code 2.1.332 / Codex 0.171.0 of the e2e tests (tests/e2e/node_modules), offline.
//   (a) start: POST /v1/crews/{crew}/calls sent -> the CLI's first main-turn model request, minus the floor: the
//       same CLI started directly (same argv, same environment, same cwd, the prompt on stdin) -> its first request;
//   (b) end: the mock's last answer sent -> the call seen completed by a client long-polling GET /v1/calls/{id},
//       minus the floor: the direct CLI's last answer -> its result line on stdout (Claude `result`, Codex
//       `turn.completed`).
// The argv and environment of the direct runs are the server's own: read from /proc of the CLI process of one
// unmeasured call (the mock holds its first turn until they are read); Claude's --session-id gets a fresh UUID
// per run. Runs alternate (direct, call) after one unmeasured warm-up each. Every step must succeed and every run
// must be measured, or the program exits non-zero (GoogleTest failures).
// Usage: agentworks-bench-agent-functions [--runs N] [--cli claude|codex|both]   (docs/benchmarks.md "Agent runners")
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "agent_process.hpp"
#include "driver/function_e2e_fixture.hpp"
#include "latency_stats.hpp"
#include "testing/piped_process.hpp"

namespace agentworks::e2e {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;
using bench::boottime_ns;
using bench::capture_cli_process;
using bench::CapturedRun;
using bench::Clock;
using bench::exact_env;
using bench::fresh_uuid;
using bench::ns;
using bench::paired;
using bench::process_start_ns;
using bench::replace_all;

int g_runs = 20;

struct Samples {
  std::vector<std::int64_t> start_call, start_direct, end_call, end_direct, exit_direct;
  std::vector<std::int64_t> spawn_call;  // call sent -> the CLI process started (/proc starttime)
};

void print_rows(const std::string& cli, const Samples& s) {
  auto row = [](const char* what, const std::vector<std::int64_t>& v) {
    const auto sum = bench::summarize(v);
    std::printf("  %-50s %4zu %9.1f %9.1f %9.1f\n", what, sum.count, sum.p50_ms, sum.p99_ms, sum.max_ms);
  };
  auto added = [&](const char* what, const std::vector<std::int64_t>& call, const std::vector<std::int64_t>& direct) {
    const auto c = bench::summarize(call), d = bench::summarize(direct);
    const auto pairs = bench::summarize(paired(call, direct));
    std::printf("  %-50s      %9.1f %9.1f   (p50, p99 of each series' difference)\n", what, c.p50_ms - d.p50_ms,
                c.p99_ms - d.p99_ms);
    std::printf("  %-50s %4zu %9.1f %9.1f   goal <= 50 ms (paired p50): %s\n", "    paired: call_i - direct_i",
                pairs.count, pairs.p50_ms, pairs.p99_ms, pairs.p50_ms <= 50.0 ? "met" : "NOT met");
  };
  std::printf("\n%s (ms)                                              n       p50       p99       max\n", cli.c_str());
  row("(a) call sent -> first model request", s.start_call);
  row("(a) floor: CLI started -> first model request", s.start_direct);
  added("(a) added by the platform", s.start_call, s.start_direct);
  row("(a) split: call sent -> CLI process started (10ms ticks)", s.spawn_call);
  row("(b) last answer -> call completed seen", s.end_call);
  row("(b) floor: last answer -> CLI result line", s.end_direct);
  added("(b) added by the platform", s.end_call, s.end_direct);
  row("(b') floor 2: last answer -> CLI exited (20 ms polls)", s.exit_direct);
  added("(b') added beyond the CLI's exit", s.end_call, s.exit_direct);
  std::fflush(stdout);
}

class AgentFunctionsBench : public FunctionE2eTest {
 protected:
  explicit AgentFunctionsBench(std::string cli) : FunctionE2eTest(std::move(cli)) {}

  // The server's argv/env for this CLI, from one unmeasured call held at its first model request.
  void capture() {
    const std::string marker = "BENCH-CAPTURE-" + cli_;
    model_->script_conversation(marker, {MockAnswer::hang("DONE-" + marker)});
    const std::string id = start_call("bench", "task", marker);
    ASSERT_TRUE(wait_hanging(1)) << model_->describe();
    captured_ = capture_cli_process("AGENTWORKS_CALL_ID=" + id, cli_);
    model_->release_hangs();
    ASSERT_TRUE(captured_) << "no " << cli_ << " process with AGENTWORKS_CALL_ID=" << id << " found in /proc";
    const auto turns = model_->main_turns_with(marker);
    ASSERT_FALSE(turns.empty());
    prompt_template_ = turns.front().last_user;
    capture_marker_ = marker;
    const json c = wait_terminal(id, 120s);
    ASSERT_EQ(c.value("status", ""), "completed") << c.dump(2);
    std::printf("%s argv:", cli_.c_str());
    for (const auto& a : captured_->argv) std::printf(" %s", a.size() > 120 ? (a.substr(0, 120) + "...").c_str() : a.c_str());
    std::printf("\n");
  }

  // One direct run: the captured argv/env/cwd, the prompt with `marker` on stdin.
  void direct_run(const std::string& marker, Samples* samples) {
    std::vector<std::string> argv = captured_->argv;
    for (std::size_t i = 0; i + 1 < argv.size(); ++i) {
      if (argv[i] == "--session-id") argv[i + 1] = fresh_uuid();
    }
    model_->script_conversation(marker, {MockAnswer::reply("DONE-" + marker)});
    const std::string prompt = replace_all(prompt_template_, capture_marker_, marker);
    const auto t0 = Clock::now();
    testing::PipedProcess cli(argv, exact_env(captured_->environment), captured_->cwd,
                              home_.path("direct-" + cli_ + ".stderr"));
    cli.write_line(prompt);
    cli.close_stdin();
    const std::string terminal = cli_ == "codex" ? "\"type\":\"turn.completed\"" : "\"type\":\"result\"";
    std::optional<Clock::time_point> result_at;
    std::string result_line;
    const auto deadline = Clock::now() + 120s;
    while (auto line = cli.read_line(deadline)) {
      if (line->find(terminal) != std::string::npos) {
        result_at = Clock::now();
        result_line = *line;
        break;
      }
    }
    ASSERT_TRUE(result_at) << "direct " << cli_ << " gave no result line:\n" << cli.transcript();
    EXPECT_EQ(result_line.find("\"is_error\":true"), std::string::npos) << result_line;
    const auto exit = cli.wait_exit(60s);
    const auto exited_at = Clock::now();
    ASSERT_TRUE(exit && *exit == 0) << "direct " << cli_ << " exit " << (exit ? *exit : -1) << "\n" << cli.transcript();
    const auto turns = model_->main_turns_with(marker);
    ASSERT_FALSE(turns.empty()) << model_->describe();
    if (samples == nullptr) return;
    samples->start_direct.push_back(ns(turns.front().received - t0));
    samples->end_direct.push_back(ns(*result_at - turns.back().answered));
    samples->exit_direct.push_back(ns(exited_at - turns.back().answered));
  }

  // One call: POST, then long-poll until terminal.
  void call_run(const std::string& marker, Samples* samples) {
    model_->script_conversation(marker, {MockAnswer::reply("DONE-" + marker)});
    // At the run's first model request (the CLI is alive, waiting for the answer): when did its process start?
    std::optional<std::int64_t> cli_started;
    std::string watched_id;
    std::mutex watch;
    model_->on_main_turn([&](const ModelRequest& r) {
      std::lock_guard lock(watch);
      if (cli_started || watched_id.empty() || r.conversation.find(marker) == std::string::npos) return;
      if (const auto p = capture_cli_process("AGENTWORKS_CALL_ID=" + watched_id, cli_)) {
        cli_started = process_start_ns(p->pid);
      }
    });
    struct Unwatch {
      MockModel& model;
      ~Unwatch() { model.on_main_turn(nullptr); }  // also when an assertion returns early
    } unwatch{*model_};
    const auto t0_boot = boottime_ns();
    const auto t0 = Clock::now();
    const auto accepted = call(owner_http(), "bench", "task", json{{"text", marker}});
    ASSERT_EQ(accepted.status, 201) << testing::describe(accepted);
    json c = testing::parse_json(accepted.body);
    const std::string id = c.at("call_id").get<std::string>();
    {
      std::lock_guard lock(watch);
      watched_id = id;
    }
    std::optional<Clock::time_point> seen;
    const auto deadline = Clock::now() + 120s;
    while (Clock::now() < deadline) {
      if (testing::is_terminal_status(c.value("status", ""))) {
        seen = Clock::now();
        break;
      }
      const std::string query = "after=" + std::to_string(c.value("next_after", -1L)) +
                                "&after_event=" + std::to_string(c.value("next_after_event", -1L)) + "&wait_seconds=25";
      const auto r = status_as(owner_http(), id, query);
      ASSERT_EQ(r.status, 200) << testing::describe(r);
      c = testing::parse_json(r.body);
    }
    ASSERT_TRUE(seen) << "call " << id << " not terminal: " << c.dump(2);
    ASSERT_EQ(c.value("status", ""), "completed") << c.dump(2);
    EXPECT_EQ(answer_of(c), "DONE-" + marker) << c.dump(2);
    const auto turns = model_->main_turns_with(marker);
    ASSERT_FALSE(turns.empty()) << model_->describe();
    if (samples == nullptr) return;
    samples->start_call.push_back(ns(turns.front().received - t0));
    samples->end_call.push_back(ns(*seen - turns.back().answered));
    std::lock_guard lock(watch);
    if (cli_started) samples->spawn_call.push_back(*cli_started - t0_boot);
  }

  void measure() {
    make_agent_crew("bench", json::array({agent_function("task", nullptr, {{"idle_timeout_seconds", 60}})}));
    ASSERT_NO_FATAL_FAILURE(capture());
    ASSERT_NO_FATAL_FAILURE(direct_run("BENCH-WARM-DIRECT-" + cli_, nullptr));
    Samples s;
    for (int i = 0; i < g_runs; ++i) {
      // Delimited markers: run 1's must not be found inside run 10's conversation.
      ASSERT_NO_FATAL_FAILURE(direct_run("BENCH-DIRECT-" + cli_ + "-#" + std::to_string(i) + "#", &s));
      ASSERT_NO_FATAL_FAILURE(call_run("BENCH-CALL-" + cli_ + "-#" + std::to_string(i) + "#", &s));
    }
    print_rows(cli_, s);
    const auto runs = static_cast<std::size_t>(g_runs);
    EXPECT_EQ(s.start_call.size(), runs);
    EXPECT_EQ(s.start_direct.size(), runs);
    EXPECT_EQ(s.end_call.size(), runs);
    EXPECT_EQ(s.end_direct.size(), runs);
  }

  std::optional<CapturedRun> captured_;
  std::string prompt_template_;
  std::string capture_marker_;
};

class ClaudeAgentBench : public AgentFunctionsBench {
 protected:
  ClaudeAgentBench() : AgentFunctionsBench("claude") {}
};
class CodexAgentBench : public AgentFunctionsBench {
 protected:
  CodexAgentBench() : AgentFunctionsBench("codex") {}
};

TEST_F(ClaudeAgentBench, Overhead) { measure(); }
TEST_F(CodexAgentBench, Overhead) { measure(); }

}  // namespace
}  // namespace agentworks::e2e

int main(int argc, char** argv) {
  return agentworks::bench::run_agent_bench(argc, argv, "both", agentworks::e2e::g_runs, "AgentBench");
}
