// Crew conversation benchmark: what the server adds before a Crew's own agent starts a resumed turn (R-K1, R-K2),
// with the real Claude Code 2.1.332 / Codex 0.171.0 of the e2e tests (tests/e2e/node_modules) against the mock
// model, offline.
//   platform: POST /v1/messages into the open conversation with crew:api sent -> the mock has read the first
//             main-turn request carrying that message (the 2nd and later messages: the server resumes the session,
//             `claude -p ... --resume SESSION` / `codex exec resume THREAD`);
//   floor:    the same resumed CLI started directly (same argv, same environment, same cwd, the prompt on stdin)
//             -> its first main-turn request.
// The argv and environment of the direct runs are the server's own: read from /proc of the CLI process of one
// unmeasured resumed turn (the mock holds its first request until they are read). Every turn the server runs is
// answered with a send_message call then a text, so it ends without the silent-turn question; the next run starts
// when GET /v1/crews/api shows the conversation "turn":"idle". The direct runs resume the same session and are
// answered with a text only (their turn token is stale: send_message would be refused). Runs alternate (direct,
// message) after one unmeasured warm-up each. The server runs with --rate-limit-per-hour raised so that every run
// fits in the one conversation. Every step must succeed and every run must be measured, or the program exits
// non-zero (GoogleTest failures).
// Usage: agentworks-bench-crew-conversations [--runs N] [--cli claude|codex|both]
//        (docs/benchmarks.md "Crew conversations")
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "agent_process.hpp"
#include "driver/agent_env.hpp"
#include "driver/cli_locator.hpp"
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
using bench::ns;
using bench::paired;
using bench::process_start_ns;
using bench::replace_all;

constexpr auto kTurnTimeout = 150s;

int g_runs = 20;

struct Samples {
  std::vector<std::int64_t> message;  // message sent -> the turn's first model request
  std::vector<std::int64_t> direct;   // the resumed CLI started directly -> its first model request
  std::vector<std::int64_t> spawn;    // message sent -> the turn's CLI process started (/proc starttime)
};

void print_rows(const std::string& cli, const Samples& s) {
  auto row = [](const char* what, const std::vector<std::int64_t>& v) {
    const auto sum = bench::summarize(v);
    std::printf("  %-56s %4zu %9.1f %9.1f %9.1f\n", what, sum.count, sum.p50_ms, sum.p99_ms, sum.max_ms);
  };
  const auto m = bench::summarize(s.message), d = bench::summarize(s.direct);
  const auto pairs = bench::summarize(paired(s.message, s.direct));
  std::printf("\n%s, resumed turns (ms)                                          n       p50       p99       max\n",
              cli.c_str());
  row("platform: message sent -> the turn's first model request", s.message);
  row("floor: the same CLI started -> its first model request", s.direct);
  std::printf("  %-56s      %9.1f %9.1f   (p50, p99 of each series' difference)\n", "added by the platform",
              m.p50_ms - d.p50_ms, m.p99_ms - d.p99_ms);
  std::printf("  %-56s %4zu %9.1f %9.1f\n", "  paired: message_i - direct_i", pairs.count, pairs.p50_ms, pairs.p99_ms);
  std::printf("  %-56s      %9.2f %9.2f   (p50, p99)\n", "ratio platform / floor", m.p50_ms / d.p50_ms,
              m.p99_ms / d.p99_ms);
  row("split: message sent -> CLI process started (10ms ticks)", s.spawn);
  // Run by run, to tell a slow tail from a drift as the session grows.
  auto list = [](const char* what, const std::vector<std::int64_t>& v) {
    std::printf("  %s:", what);
    for (const auto x : v) std::printf(" %.0f", static_cast<double>(x) / 1e6);
    std::printf("\n");
  };
  list("platform, in run order", s.message);
  list("floor, in run order   ", s.direct);
  std::fflush(stdout);
}

// What one server turn showed at its first model request.
struct TurnSeen {
  std::mutex mutex;
  bool fired = false;
  std::optional<CapturedRun> cli;  // the turn's CLI process, read while the mock held that request
  std::optional<std::int64_t> cli_started;
};

class CrewConversationsBench : public FunctionE2eTest {
 protected:
  explicit CrewConversationsBench(std::string cli) : FunctionE2eTest(std::move(cli)) {}

  // FunctionE2eTest::SetUp with one server flag more: every turn is two messages of the one conversation (the
  // message and the answer), and the default 40 a rolling hour would refuse the 18th run.
  void SetUp() override {
    AW_E2E_NEED_CLI(cli_ == "codex" ? codex_binary() : claude_binary(), cli_);
    model_ = std::make_unique<MockModel>();
    agent_env_ = testing::merge_env(claude_env(home_, *model_), codex_env(home_, *model_, "OPENAI_API_KEY"));
    start_server({"--rate-limit-per-hour", std::to_string(2 * (g_runs + 3) + 10)}, agent_env_);
  }

  // Crew "api" with no functions and this CLI as its agent (crew.json).
  void make_talking_crew() { FunctionE2eTest::make_talking_crew("api", json::array()); }

  static std::string answer_of(const std::string& marker) { return "ANSWER " + marker; }
  static std::string direct_text_of(const std::string& marker) { return "DIRECT-DONE " + marker; }

  // The mock's answers to one turn the server runs: it speaks, then ends.
  static void script_message_turn(std::vector<MockAnswer>& script, const std::string& marker) {
    const std::string text = answer_of(marker);
    script.push_back(MockAnswer::tool(
        {"send_message", [text](const ModelRequest&) { return json{{"text", text}}.dump(); }}));
    script.push_back(MockAnswer::reply("turn over: " + marker));
  }

  json post_message(const json& body) {
    json b = body;
    b["agent_name"] = "worker";
    return http_json(owner_http(), "POST", "/v1/messages", b.dump(), 201);
  }

  // Waits until the conversation's `turns_` turns are over and no message waits for another.
  void wait_turn_over() {
    json last;
    const bool over = testing::wait_until(
        [&] {
          const json crew = http_json(owner_http(), "GET", "/v1/crews/api", std::nullopt, 200);
          for (const json& c : crew.at("conversations")) {
            if (c.value("conversation_id", "") != conversation_id_) continue;
            last = c;
            return c.value("turn", "") == "idle" && c.value("turns", 0) == turns_ && c.value("waiting", 0) == 0;
          }
          return false;
        },
        kTurnTimeout, 20ms);
    ASSERT_TRUE(over) << "turn " << turns_ << " not over: " << last.dump(2) << "\n" << model_->describe();
  }

  // The Crew's agent answered `marker` in the conversation (read after its turn ended).
  void expect_answer(const std::string& marker) {
    const json page = http_json(owner_http(), "GET", "/v1/messages?inbox_id=" + inbox_id_ + "&after=" + cursor_,
                                std::nullopt, 200);
    cursor_ = page.value("next_cursor", cursor_);
    for (const json& m : page.at("messages")) {
      if (m.value("message", "") == answer_of(marker) && m.at("sender").value("agent_name", "") == "crew:api") return;
    }
    FAIL() << "no answer '" << answer_of(marker) << "' from crew:api in " << page.dump(2);
  }

  // One message into the conversation, to the end of the turn it starts; `seen`: its CLI process, read from /proc
  // at the turn's first model request (held by the mock meanwhile).
  void message_run(const std::string& marker, Samples* samples, std::shared_ptr<TurnSeen> seen = nullptr) {
    if (!seen) seen = std::make_shared<TurnSeen>();
    model_->on_main_turn([seen, marker, tag = "AGENTWORKS_CONVERSATION_ID=" + conversation_id_,
                          cli = cli_](const ModelRequest& r) {
      std::lock_guard lock(seen->mutex);
      if (seen->fired || r.last_user.find(marker) == std::string::npos) return;
      seen->fired = true;
      seen->cli = capture_cli_process(tag, cli);
      if (seen->cli) seen->cli_started = process_start_ns(seen->cli->pid);
    });
    struct Unwatch {
      MockModel& model;
      ~Unwatch() { model.on_main_turn(nullptr); }  // also when an assertion returns early
    } unwatch{*model_};
    const auto t0_boot = boottime_ns();
    const auto t0 = Clock::now();
    const json sent = post_message({{"inbox_id", inbox_id_}, {"message", marker}});
    ASSERT_EQ(sent.value("conversation_id", ""), conversation_id_) << sent.dump();
    const auto first = model_->wait_for_user_text(marker, kTurnTimeout);
    ASSERT_TRUE(first) << "no model request carried " << marker << "\n" << model_->describe();
    ++turns_;
    ASSERT_NO_FATAL_FAILURE(wait_turn_over());
    ASSERT_NO_FATAL_FAILURE(expect_answer(marker));
    std::lock_guard lock(seen->mutex);
    ASSERT_TRUE(seen->cli && seen->cli_started)
        << "no " << cli_ << " process with AGENTWORKS_CONVERSATION_ID=" << conversation_id_ << " found in /proc";
    if (samples == nullptr) return;
    samples->message.push_back(ns(first->received - t0));
    samples->spawn.push_back(*seen->cli_started - t0_boot);
  }

  // The server's argv/env/cwd of a resumed turn, and its prompt (the mock's copy of the newest user message).
  void capture() {
    auto seen = std::make_shared<TurnSeen>();
    ASSERT_NO_FATAL_FAILURE(message_run(capture_marker_, nullptr, seen));
    const auto turn = model_->wait_for_user_text(capture_marker_, 1s);
    ASSERT_TRUE(turn);
    prompt_template_ = turn->last_user;
    {
      std::lock_guard lock(seen->mutex);
      captured_ = seen->cli;
    }
    const auto& argv = captured_->argv;
    const bool resumed = std::find(argv.begin(), argv.end(), cli_ == "codex" ? "resume" : "--resume") != argv.end();
    std::printf("%s argv:", cli_.c_str());
    for (const auto& a : argv) std::printf(" %s", a.size() > 120 ? (a.substr(0, 120) + "...").c_str() : a.c_str());
    std::printf("\n");
    ASSERT_TRUE(resumed) << "the captured turn does not resume its session";
  }

  // The captured resumed CLI started directly, the prompt with `marker` on stdin, to its exit.
  void direct_run(const std::string& marker, Samples* samples) {
    const std::string prompt = replace_all(prompt_template_, capture_marker_, marker);
    const auto t0 = Clock::now();
    testing::PipedProcess cli(captured_->argv, exact_env(captured_->environment), captured_->cwd,
                              home_.path("direct-" + cli_ + ".stderr"));
    cli.write_line(prompt);
    cli.close_stdin();
    // Read stdout as it comes (a full pipe would stall the CLI) up to its terminal line.
    const std::string terminal = cli_ == "codex" ? "\"type\":\"turn.completed\"" : "\"type\":\"result\"";
    std::optional<std::string> result_line;
    const auto deadline = Clock::now() + kTurnTimeout;
    while (auto line = cli.read_line(deadline)) {
      if (line->find(terminal) != std::string::npos) {
        result_line = *line;
        break;
      }
    }
    ASSERT_TRUE(result_line) << "direct " << cli_ << " gave no result line:\n" << cli.transcript();
    ASSERT_EQ(result_line->find("\"is_error\":true"), std::string::npos) << *result_line;
    const auto exit = cli.wait_exit(60s);
    ASSERT_TRUE(exit && *exit == 0) << "direct " << cli_ << " exit " << (exit ? *exit : -1) << "\n" << cli.transcript();
    const auto first = model_->wait_for_user_text(marker, 1s);
    ASSERT_TRUE(first) << "no model request carried " << marker << "\n" << model_->describe();
    // The script is one queue for the whole conversation: this proves it is still in step.
    ASSERT_EQ(first->reply, direct_text_of(marker)) << model_->describe();
    if (samples == nullptr) return;
    samples->direct.push_back(ns(first->received - t0));
  }

  void measure() {
    const std::string opening = "BENCH-OPEN-" + cli_;
    capture_marker_ = "BENCH-CAPTURE-" + cli_;
    const std::string warm_direct = "BENCH-WARM-DIRECT-" + cli_, warm_message = "BENCH-WARM-MESSAGE-" + cli_;
    // Delimited markers: run 1's must not be found inside run 10's.
    auto direct_marker = [&](int i) { return "BENCH-DIRECT-" + cli_ + "-#" + std::to_string(i) + "#"; };
    auto message_marker = [&](int i) { return "BENCH-MESSAGE-" + cli_ + "-#" + std::to_string(i) + "#"; };
    // Every later request of the conversation (the direct runs' too: they resume it) holds the opening message,
    // so all of them take the next answers of this one script, in the order the turns run.
    std::vector<MockAnswer> script;
    script_message_turn(script, opening);
    script_message_turn(script, capture_marker_);
    script.push_back(MockAnswer::reply(direct_text_of(warm_direct)));
    script_message_turn(script, warm_message);
    for (int i = 0; i < g_runs; ++i) {
      script.push_back(MockAnswer::reply(direct_text_of(direct_marker(i))));
      script_message_turn(script, message_marker(i));
    }
    model_->script_conversation(opening, std::move(script));

    ASSERT_NO_FATAL_FAILURE(make_talking_crew());
    const json opened = post_message({{"target", "crew:api"}, {"message", opening}});
    conversation_id_ = opened.at("conversation_id").get<std::string>();
    inbox_id_ = opened.at("inbox_id").get<std::string>();
    ASSERT_TRUE(model_->wait_for_user_text(opening, kTurnTimeout)) << model_->describe();
    ++turns_;
    ASSERT_NO_FATAL_FAILURE(wait_turn_over());
    ASSERT_NO_FATAL_FAILURE(expect_answer(opening));

    ASSERT_NO_FATAL_FAILURE(capture());
    ASSERT_NO_FATAL_FAILURE(direct_run(warm_direct, nullptr));
    ASSERT_NO_FATAL_FAILURE(message_run(warm_message, nullptr));
    Samples s;
    for (int i = 0; i < g_runs; ++i) {
      ASSERT_NO_FATAL_FAILURE(direct_run(direct_marker(i), &s));
      ASSERT_NO_FATAL_FAILURE(message_run(message_marker(i), &s));
    }
    print_rows(cli_, s);
    const auto runs = static_cast<std::size_t>(g_runs);
    EXPECT_EQ(s.message.size(), runs);
    EXPECT_EQ(s.direct.size(), runs);
    EXPECT_EQ(s.spawn.size(), runs);
  }

  std::string conversation_id_;
  std::string inbox_id_;
  std::string cursor_ = "0";
  int turns_ = 0;  // the server's turns of the conversation so far
  std::optional<CapturedRun> captured_;
  std::string prompt_template_;
  std::string capture_marker_;
};

class ClaudeCrewConversationsBench : public CrewConversationsBench {
 protected:
  ClaudeCrewConversationsBench() : CrewConversationsBench("claude") {}
};
class CodexCrewConversationsBench : public CrewConversationsBench {
 protected:
  CodexCrewConversationsBench() : CrewConversationsBench("codex") {}
};

TEST_F(ClaudeCrewConversationsBench, ResumedTurn) { measure(); }
TEST_F(CodexCrewConversationsBench, ResumedTurn) { measure(); }

}  // namespace
}  // namespace agentworks::e2e

int main(int argc, char** argv) {
  return agentworks::bench::run_agent_bench(argc, argv, "claude", agentworks::e2e::g_runs, "CrewConversationsBench");
}
