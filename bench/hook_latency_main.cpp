// agentworks-bench-hook: whole-process latency of agentworks-hook against a real agentworks-bridge and
// agentworks-server on loopback (docs/benchmarks.md "Hook"). Each sample forks and execs the program with a
// recorded Stop payload on stdin and waits for it to exit, as Claude Code does. Four series, alternated sample by
// sample (floor, prompt, unattached, delivery, floor, …) in --rounds rounds, so that a machine that changes during
// the run changes every series alike:
//   floor       agentworks-bench-hook-floor (C): connect, greeting, one lookup line, answer; the least possible
//   prompt      agentworks-hook claude UserPromptSubmit with an ordinary prompt (never opens the socket)
//   unattached  agentworks-hook claude Stop for a session that is not attached (one deliver round trip)
//   delivery    agentworks-hook claude Stop for an attached session with one message waiting (release check,
//               offer commit and the delivered text included)
// Targets: unattached p50 < 1.5 ms and p99 < 5 ms; delivery p50 < 5 ms and p99 < 20 ms; unattached p50 / floor p50
// <= 1.3 in every round (min/median/max printed). The run is refused (exit 3) when the floor's p50 of any two
// rounds differ by more than 20 %: the machine changed under it.
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "bench_rig.hpp"
#include "bench_run.hpp"
#include "hook_run.hpp"
#include "http_client.hpp"
#include "latency_stats.hpp"
#include "process_watch.hpp"
#include "testing/bridge_client.hpp"
#include "bench_options.hpp"

namespace bench = agentworks::bench;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

struct Options : bench::ProgramOptions {
  std::string hook_binary;
  std::string floor_binary;
  std::size_t runs = 500;
  std::size_t rounds = 3;
};

json stop_payload(const std::string& session) {
  return {{"session_id", session},
          {"transcript_path", "/home/dev/.claude/projects/-home-dev-proj/" + session + ".jsonl"},
          {"cwd", "/home/dev/proj"},
          {"permission_mode", "default"},
          {"hook_event_name", "Stop"},
          {"stop_hook_active", false},
          {"last_assistant_message", "I refactored the parser and all tests pass."}};
}

bool wait_until(const std::function<bool()>& done, std::chrono::milliseconds timeout,
                std::chrono::milliseconds poll = 1ms) {
  const auto deadline = Clock::now() + timeout;
  while (Clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(poll);
  }
  return done();
}

struct Series {
  const char* name;
  std::vector<std::int64_t> samples;
  std::vector<std::int64_t> cpu;
  std::size_t bad = 0;  // wrong exit code or output
  std::string first_bad;
};

// The p50 (ms) of samples [from, to) of a series.
double p50_of(const std::vector<std::int64_t>& samples, std::size_t from, std::size_t to) {
  if (from >= to || to > samples.size()) return 0.0;
  return bench::summarize(std::vector<std::int64_t>(samples.begin() + static_cast<std::ptrdiff_t>(from),
                                                    samples.begin() + static_cast<std::ptrdiff_t>(to)))
      .p50_ms;
}

void print(const Series& s) {
  const auto st = bench::summarize(s.samples);
  const auto cpu = bench::summarize(s.cpu);
  std::printf("  %-11s n=%-5zu wall p50 %7.3f ms  p99 %7.3f ms  max %7.3f ms | child CPU p50 %6.3f ms  p99 %6.3f ms\n",
              s.name, st.count, st.p50_ms, st.p99_ms, st.max_ms, cpu.p50_ms, cpu.p99_ms);
  if (s.bad > 0) std::printf("              BAD RUNS: %zu (first: %s)\n", s.bad, s.first_bad.c_str());
}

int run(const Options& opt) {
  std::printf("agentworks-bench-hook: %zu runs per series\nhook %s\nload average at start: %s\n", opt.runs,
              opt.hook_binary.c_str(), bench::load_average().c_str());
  std::string error;
  bench::BenchServer server(
      opt.server_binary, {"--rate-limit-per-hour", "100000000", "--inbox-history", "1000000"}, opt.data_parent, 30s);
  const std::string& token = server.token();
  const std::uint16_t port = server.port();
  const std::string url = "http://127.0.0.1:" + std::to_string(server.port());
  bench::BenchBridge bridge(opt.bridge_binary, opt.data_parent, url, token, 30s);
  std::unique_ptr<agentworks::testing::BridgeClient> client =
      agentworks::testing::BridgeClient::open(bridge.socket_path(), &error, 30s);
  if (!client) {
    std::fprintf(stderr, "bridge socket: %s\n", error.c_str());
    return 2;
  }
  auto& c = *client;
  const std::string attached = "bench-hook-attached";
  const json a = c.call({{"op", "attach"}, {"provider", "claude"}, {"session_id", attached},
                         {"agent_name", "hookbench"}, {"purpose", "hook benchmark receiver"},
                         {"config", bridge.config_path()}});
  if (!a.value("ok", false)) {
    std::fprintf(stderr, "attach failed: %s\n", a.dump().c_str());
    return 2;
  }
  const auto lookup_pending = [&] {
    return c.call({{"op", "lookup"}, {"provider", "claude"}, {"session_id", attached}}).value("pending", -1L);
  };
  // The hook runs in the bridge's temp HOME (it finds the bridge socket under HOME).
  const auto env = agentworks::testing::child_environment(bench::temp_home_env(bridge.root()));
  const std::vector<std::string> stop_argv = {opt.hook_binary, "claude", "Stop"};

  Series floor{"floor", {}, {}, 0, {}};
  Series prompt{"prompt", {}, {}, 0, {}};
  Series unattached{"unattached", {}, {}, 0, {}};
  Series delivery{"delivery", {}, {}, 0, {}};
  const auto record = [](Series& s, const bench::HookRun& r, bool ok) {
    if (ok) {
      s.samples.push_back(r.ns);
      s.cpu.push_back(r.cpu_ns);
    } else if (s.bad++ == 0) {
      s.first_bad = "exit " + std::to_string(r.exit_code) + ", stdout " + r.out.substr(0, 200);
    }
  };
  // Warm the page cache and the dynamic loader's files before timing anything.
  for (int i = 0; i < 20; ++i) {
    bench::run_hook_process({opt.floor_binary, bridge.socket_path()}, env, "");
    bench::run_hook_process(stop_argv, env, stop_payload("bench-hook-none").dump());
  }
  json ordinary = stop_payload("bench-hook-none");
  ordinary["hook_event_name"] = "UserPromptSubmit";
  ordinary["prompt"] = "please fix the failing test";
  const std::string none = stop_payload("bench-hook-none").dump();
  bench::HttpClient http("127.0.0.1", port, token);
  // The delivery series measures a Stop that hands over a waiting message; with the nudge on (R-X3) every other
  // Stop of the same turn would first ask about the unanswered one instead.
  const auto nudge_off = http.request("POST", "/v1/agents/hookbench/communication", json{{"nudge", "off"}}.dump());
  if (nudge_off.status != 200) {
    std::fprintf(stderr, "turning the nudge off failed: %d %s\n", nudge_off.status, nudge_off.body.c_str());
    return 2;
  }
  const std::string with_message = stop_payload(attached).dump();
  // One sample of each series per step, alternated; the message for `delivery` is sent and seen cached before the
  // step, outside every timing.
  for (std::size_t k = 0; k < opt.runs; ++k) {
    const std::string body = json{{"target", "agent:hookbench"}, {"message", "hook bench message " + std::to_string(k)}}.dump();
    const auto sent = http.request("POST", "/v1/messages", body);
    if (sent.status < 200 || sent.status >= 300) {
      std::fprintf(stderr, "send failed: %d %s %s\n", sent.status, sent.body.c_str(), sent.error.c_str());
      return 2;
    }
    if (!wait_until([&] { return lookup_pending() == 1; }, 10s)) {
      std::fprintf(stderr, "message %zu did not reach the bridge within 10 s (pending %ld; delivery so far: %zu "
                   "good, %zu bad: %s)\n",
                   k, lookup_pending(), delivery.samples.size(), delivery.bad, delivery.first_bad.c_str());
      return 2;
    }
    const auto f = bench::run_hook_process({opt.floor_binary, bridge.socket_path()}, env, "");
    record(floor, f, f.exit_code == 0);
    const auto p = bench::run_hook_process({opt.hook_binary, "claude", "UserPromptSubmit"}, env, ordinary.dump());
    record(prompt, p, p.exit_code == 0 && p.out.empty());
    const auto u = bench::run_hook_process(stop_argv, env, none);
    record(unattached, u, u.exit_code == 0 && u.out.empty());
    const auto d = bench::run_hook_process(stop_argv, env, with_message);
    record(delivery, d, d.exit_code == 0 && d.out.find("hook bench message " + std::to_string(k)) != std::string::npos);
  }

  std::printf("\nwhole-process latency (fork + exec + stdin + round trip + exit):\n");
  for (const Series* s : {&floor, &prompt, &unattached, &delivery}) print(*s);
  const auto u = bench::summarize(unattached.samples);
  const auto d = bench::summarize(delivery.samples);
  const auto f = bench::summarize(floor.samples);
  const double ratio = f.count > 0 && f.p50_ms > 0 ? u.p50_ms / f.p50_ms : 0.0;
  // Per round: unattached p50 / floor p50 of the same samples' span.
  std::vector<double> ratios, round_floors;
  const std::size_t per_round = std::max<std::size_t>(1, floor.samples.size() / opt.rounds);
  std::printf("\nper round (%zu samples each): unattached p50 / floor p50\n", per_round);
  for (std::size_t r = 0; r < opt.rounds && (r + 1) * per_round <= floor.samples.size(); ++r) {
    const double fp = p50_of(floor.samples, r * per_round, (r + 1) * per_round);
    const double up = p50_of(unattached.samples, r * per_round, std::min((r + 1) * per_round, unattached.samples.size()));
    ratios.push_back(fp > 0 ? up / fp : 0.0);
    round_floors.push_back(fp);
    std::printf("  round %zu: %.3f / %.3f ms = %.2f\n", r + 1, up, fp, ratios.back());
  }
  std::vector<double> sorted = ratios;
  std::sort(sorted.begin(), sorted.end());
  // Every round's floor, not only the first and the last: a floor that moved in the middle moved too.
  const double lowest_floor = round_floors.empty() ? 0.0 : *std::min_element(round_floors.begin(), round_floors.end());
  const double highest_floor = round_floors.empty() ? 0.0 : *std::max_element(round_floors.begin(), round_floors.end());
  const bool floors_agree = lowest_floor > 0 && highest_floor <= 1.2 * lowest_floor;
  std::printf("\nload average at end: %s\ntargets:\n", bench::load_average().c_str());
  std::printf("  unattached p50 < 1.5 ms: %.3f ms  %s\n", u.p50_ms, u.count > 0 && u.p50_ms < 1.5 ? "MET" : "MISSED");
  std::printf("  unattached p99 < 5 ms:   %.3f ms  %s\n", u.p99_ms, u.count > 0 && u.p99_ms < 5.0 ? "MET" : "MISSED");
  std::printf("  unattached p50 / floor p50 <= 1.3: %.3f / %.3f ms = %.2f over the run; per round min %.2f, median "
              "%.2f, max %.2f  %s\n",
              u.p50_ms, f.p50_ms, ratio, sorted.empty() ? 0.0 : sorted.front(),
              sorted.empty() ? 0.0 : sorted[sorted.size() / 2], sorted.empty() ? 0.0 : sorted.back(),
              !sorted.empty() && sorted.back() > 0 && sorted.back() <= 1.3 ? "MET" : "MISSED");
  std::printf("  delivery p50 < 5 ms:     %.3f ms  %s\n", d.p50_ms, d.count > 0 && d.p50_ms < 5.0 ? "MET" : "MISSED");
  std::printf("  delivery p99 < 20 ms:    %.3f ms  %s\n", d.p99_ms, d.count > 0 && d.p99_ms < 20.0 ? "MET" : "MISSED");
  std::fflush(stdout);
  client.reset();
  bench::unwatch_process(bridge.pid());
  bridge.stop();
  bench::unwatch_process(server.pid());
  server.stop();
  if (!floors_agree) {
    std::printf("REFUSED: the floor's p50 ranged from %.3f to %.3f ms over the rounds, more than 20 %%: the machine "
                "changed under the run\n",
                lowest_floor, highest_floor);
    return 3;
  }
  return (unattached.bad + delivery.bad + floor.bad + prompt.bad) == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  CLI::App app{"agentworks-bench-hook: whole-process hook latency against a real bridge (docs/benchmarks.md)"};
  bench::add_program_options(app, opt, bench::kServer | bench::kBridge, "the server data and the bridge's temp HOME");
  app.add_option("--hook", opt.hook_binary, "agentworks-hook binary (default: ../hooks/ next to this binary)");
  app.add_option("--floor", opt.floor_binary, "the C floor program (default: next to this binary)");
  app.add_option("--runs", opt.runs, "runs per series")->check(CLI::Range(1, 100000));
  app.add_option("--rounds", opt.rounds, "rounds the runs are split into for the per-round ratio")
      ->check(CLI::Range(1, 100));
  bench::add_watchdog_option(app, opt);
  CLI11_PARSE(app, argc, argv);
  bench::resolve_programs(opt, bench::kServer | bench::kBridge);
  if (opt.hook_binary.empty()) opt.hook_binary = bench::built_program("hooks", "agentworks-hook");
  if (opt.floor_binary.empty()) opt.floor_binary = bench::built_program("", "agentworks-bench-hook-floor");
  return bench::run_with_watchdog("agentworks-bench-hook", opt.max_seconds, [&] { return run(opt); });
}
