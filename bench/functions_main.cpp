// agentworks-bench-functions: what the platform adds to running a structured function (docs/benchmarks.md
// "Functions"), against a real agentworks-server on loopback with a real Crew folder whose function is a no-op
// script. Series, in this order, all in one run:
//   floor         fork + exec the same script directly with the inputs on stdin, read stdout to EOF, reap it
//   helper        the same, forked and exec'd by the contract floor's small static helper, latency only
//   isolated      from the helper, in the shape every execution gets (contract_floor.hpp), latency only
//   contract      isolated, between two durable writes: the least the contract's guarantees cost, so that the
//                 call's own share can be told apart
//   call+wait     POST /v1/crews/bench/calls with wait_seconds: one request from call to `completed`
//   call+poll     POST the call, then GET /v1/calls/{id} long polls (wait_seconds, the cursors last seen) until
//                 `completed` (what `functions call` + `call-status --wait` do)
//   throughput    --workers threads, each with its own keep-alive connection, call+wait back to back with
//                 --crew-max-running raised; against the same number of threads fork/exec-ing the script
// The sides alternate within each of --rounds rounds (latency sample by sample; throughput floor, contract, calls,
// floor), and the run is refused (exit 3) when the floors differ by more than 20 %. Goals: call+wait p50 at most
// 1.3x the floor's, calls/s at least 0.9 of the floor's runs/s. Any failed step ends the run with exit 1.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bench_rig.hpp"
#include "bench_run.hpp"
#include "bench_throughput.hpp"
#include "contract_floor.hpp"
#include "hook_run.hpp"
#include "http_client.hpp"
#include "latency_stats.hpp"
#include "process_watch.hpp"
#include "testing/temp_home.hpp"
#include "bench_options.hpp"

namespace bench = agentworks::bench;
namespace fs = std::filesystem;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

struct Options : bench::ProgramOptions {
  Options() { max_seconds = 900; }
  std::size_t runs = 300;
  std::size_t rounds = 3;
  std::size_t throughput_calls = 600;
  unsigned workers = 4;
  unsigned max_running = 16;
};

std::int64_t since_ns(Clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count();
}

// Thrown for any step that did not do what it must; main prints it and exits 1.
struct StepFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

json parse_or_fail(const bench::HttpResult& r, const std::string& what) {
  if (r.status == 0) throw StepFailed(what + ": transport error " + r.error);
  try {
    return json::parse(r.body);
  } catch (const std::exception&) {
    throw StepFailed(what + ": HTTP " + std::to_string(r.status) + " not JSON: " + r.body.substr(0, 300));
  }
}

const char* kCallBody = R"({"function":"noop","arguments":{"n":1},"wait_seconds":25})";
const char* kCallNoWait = R"({"function":"noop","arguments":{"n":1}})";

// call+wait: one request; the answer must be the completed Call.
void call_and_wait(bench::HttpClient& http) {
  const auto r = http.request("POST", "/v1/crews/bench/calls", kCallBody);
  const json c = parse_or_fail(r, "call");
  if (r.status != 201 || c.value("status", "") != "completed") {
    throw StepFailed("call with wait_seconds did not answer completed: HTTP " + std::to_string(r.status) + " " +
                     r.body.substr(0, 400));
  }
}

// call+poll: the call, then long polls with the cursors of the last answer until a terminal status.
void call_then_poll(bench::HttpClient& http) {
  const auto r = http.request("POST", "/v1/crews/bench/calls", kCallNoWait);
  json c = parse_or_fail(r, "call");
  if (r.status != 201) throw StepFailed("call refused: HTTP " + std::to_string(r.status) + " " + r.body.substr(0, 400));
  const std::string id = c.at("call_id").get<std::string>();
  for (int polls = 0; c.value("status", "") == "running"; ++polls) {
    if (polls > 100) throw StepFailed("call " + id + " still running after 100 polls");
    const std::string target = "/v1/calls/" + id + "?after=" + std::to_string(c.value("next_after", -1L)) +
                               "&after_event=" + std::to_string(c.value("next_after_event", -1L)) +
                               "&wait_seconds=25";
    const auto s = http.request("GET", target);
    c = parse_or_fail(s, "status");
    if (s.status != 200) throw StepFailed("status: HTTP " + std::to_string(s.status) + " " + s.body.substr(0, 400));
  }
  if (c.value("status", "") != "completed") throw StepFailed("call " + id + " ended " + c.dump().substr(0, 400));
}

void print_series(const char* name, const std::vector<std::int64_t>& samples) {
  const auto s = bench::summarize(samples);
  std::printf("  %-10s n=%-5zu p50 %8.3f ms  p99 %8.3f ms  max %8.3f ms\n", name, s.count, s.p50_ms, s.p99_ms,
              s.max_ms);
}

int run(const Options& opt) {
  std::printf("agentworks-bench-functions: %zu runs per latency series, %zu calls over %u workers "
              "(--crew-max-running %u)\nload average at start: %s\n",
              opt.runs, opt.throughput_calls, opt.workers, opt.max_running, bench::load_average().c_str());
  bench::BenchServer server(opt.server_binary, {"--crew-max-running", std::to_string(opt.max_running)},
                            opt.data_parent, 30s);
  // The Crew folder: a no-op script that reads its stdin (as a function that uses its inputs would).
  agentworks::testing::TempDir crew_root("aw-bench-crew-", opt.data_parent);
  const fs::path crew = crew_root.path() / "bench";
  fs::create_directories(crew / ".agentworks");
  fs::create_directories(crew / "tools");
  const fs::path script = crew / "tools" / "noop.sh";
  std::ofstream(script) << "#!/bin/sh\nexec cat >/dev/null\n";
  fs::permissions(script, fs::perms::owner_all);
  std::ofstream(crew / ".agentworks" / "functions.json")
      << json{{"functions",
               {{{"name", "noop"},
                 {"description", "does nothing"},
                 {"inputs", {{"type", "object"}}},
                 {"run", {{"command", {"./tools/noop.sh"}}}},
                 {"timeout_seconds", 60}}}}}
             .dump(2);

  bench::HttpClient http("127.0.0.1", server.port(), server.token());
  http.set_timeout(60s);
  const auto reg = http.request("POST", "/v1/crews", json{{"crew_name", "bench"}, {"dir", crew.string()}}.dump());
  if (reg.status != 201) {
    throw StepFailed("registering the Crew failed: HTTP " + std::to_string(reg.status) + " " + reg.body + reg.error);
  }

  // The floor runs the script with the environment an execution gets (PATH, HOME) and the inputs on stdin.
  const std::vector<std::string> env = {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + crew_root.path().string()};
  const std::string inputs = R"({"n":1})";
  const auto floor_once = [&] {
    const auto r = bench::run_hook_process({script.string()}, env, inputs);
    if (r.exit_code != 0) throw StepFailed("the floor script exited " + std::to_string(r.exit_code));
    return r.ns;
  };

  const std::string helper = bench::built_program("", "agentworks-bench-contract-helper");
  bench::ContractFloor contract(helper, (crew_root.path() / "contract-sync").string(), {script.string()}, env, inputs);
  const auto contract_once = [&] { return contract.run(); };
  const auto isolated_once = [&] { return contract.run(bench::ContractFloor::Shape::isolated, false); };
  const auto helper_plain_once = [&] { return contract.run(bench::ContractFloor::Shape::plain, false); };

  // Warm-up: page cache, the server's statements, the loader.
  for (int i = 0; i < 20; ++i) {
    floor_once();
    contract_once();
    call_and_wait(http);
  }
  std::atomic<std::size_t> busy{0};
  const auto call_worker = [&](unsigned) {
    auto client = std::make_shared<bench::HttpClient>("127.0.0.1", server.port(), server.token());
    client->set_timeout(60s);
    return [client, &busy] {
      // A slot is freed when the process is reaped, which can be a moment after the answer: busy is retried
      // (never more than a few times in a row) and counted.
      for (int attempt = 0;; ++attempt) {
        const auto r = client->request("POST", "/v1/crews/bench/calls", kCallBody);
        if (r.status == 503 && attempt < 50) {
          ++busy;
          std::this_thread::sleep_for(1ms);
          continue;
        }
        const json c = parse_or_fail(r, "call");
        if (r.status != 201 || c.value("status", "") != "completed") {
          throw StepFailed("throughput call: HTTP " + std::to_string(r.status) + " " + r.body.substr(0, 400));
        }
        return;
      }
    };
  };
  const auto floor_rate = [&] {
    return bench::throughput(opt.workers, opt.throughput_calls, [&](unsigned) { return floor_once; });
  };
  // One file per worker: each run pays its own two syncs, where the server may commit several calls in one.
  const auto contract_rate = [&] {
    return bench::throughput(opt.workers, opt.throughput_calls, [&](unsigned worker) {
      auto own = std::make_shared<bench::ContractFloor>(
          helper, (crew_root.path() / ("contract-sync-" + std::to_string(worker))).string(),
          std::vector<std::string>{script.string()}, env, inputs);
      return [own] { return own->run(); };
    });
  };

  // Rounds, each side alternated within them: the latency samples one by one (floor, call+wait, call+poll), the
  // throughput series floor, calls, floor. A round's ratios are against its own floors.
  std::vector<std::int64_t> all_floor, all_helper_plain, all_isolated, all_contract, all_waited, all_polled;
  std::vector<double> latency_ratio, rate_ratio, floor_p50, floor_rates, contract_latency, contract_rate_ratio;
  for (std::size_t round = 0; round < opt.rounds; ++round) {
    std::vector<std::int64_t> floor, helper_plain, isolated, contracted, waited, polled;
    for (std::size_t k = 0; k < opt.runs; ++k) {
      floor.push_back(floor_once());
      helper_plain.push_back(helper_plain_once());
      isolated.push_back(isolated_once());
      contracted.push_back(contract_once());
      auto t0 = Clock::now();
      call_and_wait(http);
      waited.push_back(since_ns(t0));
      t0 = Clock::now();
      call_then_poll(http);
      polled.push_back(since_ns(t0));
    }
    const double floor_before = floor_rate();
    const double contract_runs = contract_rate();
    const double calls = bench::throughput(opt.workers, opt.throughput_calls, call_worker);
    const double floor_after = floor_rate();
    const auto f = bench::summarize(floor);
    const auto c = bench::summarize(contracted);
    const auto w = bench::summarize(waited);
    latency_ratio.push_back(w.p50_ms / f.p50_ms);
    rate_ratio.push_back(calls / ((floor_before + floor_after) / 2));
    contract_latency.push_back(c.p50_ms / f.p50_ms);
    contract_rate_ratio.push_back(contract_runs / ((floor_before + floor_after) / 2));
    floor_p50.push_back(f.p50_ms);
    floor_rates.push_back(floor_before);
    floor_rates.push_back(floor_after);
    std::printf("round %zu: floor p50 %.3f ms, call+wait p50 %.3f ms (x%.2f); floor %.1f and %.1f runs/s, calls %.1f"
                " calls/s (x%.2f)\n",
                round + 1, f.p50_ms, w.p50_ms, latency_ratio.back(), floor_before, floor_after, calls,
                rate_ratio.back());
    std::printf("         contract floor p50 %.3f ms (x%.2f of the floor), %.1f runs/s (x%.2f); the call against it:"
                " p50 x%.2f, calls/s x%.2f\n",
                c.p50_ms, contract_latency.back(), contract_runs, contract_rate_ratio.back(), w.p50_ms / c.p50_ms,
                calls / contract_runs);
    all_floor.insert(all_floor.end(), floor.begin(), floor.end());
    all_contract.insert(all_contract.end(), contracted.begin(), contracted.end());
    all_isolated.insert(all_isolated.end(), isolated.begin(), isolated.end());
    all_helper_plain.insert(all_helper_plain.end(), helper_plain.begin(), helper_plain.end());
    all_waited.insert(all_waited.end(), waited.begin(), waited.end());
    all_polled.insert(all_polled.end(), polled.begin(), polled.end());
  }

  std::printf("\nend-to-end latency (no-op script, %zu runs in %zu rounds):\n", all_floor.size(), opt.rounds);
  print_series("floor", all_floor);
  print_series("helper", all_helper_plain);
  print_series("isolated", all_isolated);
  print_series("contract", all_contract);
  print_series("call+wait", all_waited);
  print_series("call+poll", all_polled);
  const auto f = bench::summarize(all_floor);
  const auto w = bench::summarize(all_waited);
  const auto p = bench::summarize(all_polled);
  std::printf("\nadded over the floor (p50): call+wait %+.3f ms (x%.2f), call+poll %+.3f ms (x%.2f)\n",
              w.p50_ms - f.p50_ms, w.p50_ms / f.p50_ms, p.p50_ms - f.p50_ms, p.p50_ms / f.p50_ms);
  std::printf("added over the floor (p99): call+wait %+.3f ms, call+poll %+.3f ms\n", w.p99_ms - f.p99_ms,
              p.p99_ms - f.p99_ms);
  const auto k = bench::summarize(all_contract);
  std::printf("added over the contract floor (p50): call+wait %+.3f ms (x%.2f); the contract floor itself %+.3f ms over"
              " the floor (x%.2f)\n",
              w.p50_ms - k.p50_ms, w.p50_ms / k.p50_ms, k.p50_ms - f.p50_ms, k.p50_ms / f.p50_ms);
  std::printf("busy retries in the throughput series: %zu\n", busy.load());
  const auto spread = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    char text[96];
    std::snprintf(text, sizeof text, "%.2f / %.2f / %.2f", v.front(), v[v.size() / 2], v.back());
    return std::string(text);
  };
  std::printf("\nload average at end: %s\n", bench::load_average().c_str());
  std::printf("goal: call+wait p50 <= 1.3x the floor's (per round min / median / max): %s (%s)\n",
              *std::max_element(latency_ratio.begin(), latency_ratio.end()) <= 1.3 ? "MET" : "MISSED",
              spread(latency_ratio).c_str());
  std::printf("goal: calls/s >= 0.9 of the floor's runs/s (per round min / median / max): %s (%s)\n",
              *std::min_element(rate_ratio.begin(), rate_ratio.end()) >= 0.9 ? "MET" : "MISSED",
              spread(rate_ratio).c_str());
  std::printf("the contract floor against the floor (per round min / median / max): p50 x%s, runs/s x%s\n",
              spread(contract_latency).c_str(), spread(contract_rate_ratio).c_str());
  // A floor that moved is no floor: the machine changed under the run.
  const auto [lo_p50, hi_p50] = std::minmax_element(floor_p50.begin(), floor_p50.end());
  const auto [lo_rate, hi_rate] = std::minmax_element(floor_rates.begin(), floor_rates.end());
  if (*hi_p50 > 1.2 * *lo_p50 || *hi_rate > 1.2 * *lo_rate) {
    std::fprintf(stderr, "agentworks-bench-functions: REFUSED: the floor moved during the run (p50 %.3f..%.3f ms, "
                 "runs/s %.1f..%.1f, more than 20 %%): run it again on a quiet machine\n",
                 *lo_p50, *hi_p50, *lo_rate, *hi_rate);
    bench::unwatch_process(server.pid());
    server.stop();
    return 3;
  }
  std::fflush(stdout);
  bench::unwatch_process(server.pid());
  server.stop();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  CLI::App app{"agentworks-bench-functions: call -> completed of a no-op function against the fork/exec floor"};
  bench::add_program_options(app, opt, bench::kServer, "the server data and the Crew folder");
  app.add_option("--runs", opt.runs, "runs per latency series in each round")->check(CLI::Range(1, 100000));
  app.add_option("--rounds", opt.rounds, "rounds, each with its own floors (the run is refused when they differ > 20 %)")
      ->check(CLI::Range(1, 100));
  app.add_option("--throughput-calls", opt.throughput_calls, "calls (and floor runs) in the throughput series")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--workers", opt.workers, "threads in the throughput series")->check(CLI::Range(1, 64));
  app.add_option("--crew-max-running", opt.max_running, "the server's per-Crew limit")->check(CLI::Range(1, 1000));
  bench::add_watchdog_option(app, opt);
  CLI11_PARSE(app, argc, argv);
  bench::resolve_programs(opt, bench::kServer);
  return bench::run_with_watchdog("agentworks-bench-functions", opt.max_seconds, [&] {
    try {
      return run(opt);
    } catch (const std::exception& e) {  // a failed step, or a throughput worker's failure
      std::fprintf(stderr, "agentworks-bench-functions: FAILED: %s\n", e.what());
      bench::kill_watched();
      return 1;
    }
  });
}
