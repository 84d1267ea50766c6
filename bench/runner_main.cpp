// agentworks-bench-runner: what serving a Crew from its owner's computer adds to a call (docs/benchmarks.md
// "Runners"). One real agentworks-server on loopback; the same no-op function declared by a Crew the server runs
// itself ("local", the floor) and by --runners Crews each served from a temp HOME by its own `agentworks crews
// serve` (the runner). Series, in one run:
//   local / served  call+wait (POST .../calls with wait_seconds: one request from call to `completed`), alternated
//                   call by call (local, served, local, served, ...), so load hits both alike
//   throughput      --runners threads, each calling its own served Crew back to back, against the same number of
//                   threads calling the local Crew
// Goal: the runner adds at most 10 ms p50 over the server running the call itself. Any failed step exits 1.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
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

#include "bench_options.hpp"
#include "bench_rig.hpp"
#include "bench_run.hpp"
#include "bench_throughput.hpp"
#include "http_client.hpp"
#include "latency_stats.hpp"
#include "process_watch.hpp"
#include "testing/cli_runner.hpp"
#include "testing/process.hpp"
#include "testing/temp_home.hpp"
#include "testing/wait.hpp"

namespace bench = agentworks::bench;
namespace testing = agentworks::testing;
namespace fs = std::filesystem;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

struct Options : bench::ProgramOptions {
  Options() { max_seconds = 900; }
  std::size_t runs = 200;
  std::size_t throughput_calls = 300;
  unsigned runners = 3;
};

struct StepFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::int64_t since_ns(Clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count();
}

const char* kCallBody = R"({"function":"noop","arguments":{"n":1},"wait_seconds":25})";

void call_and_wait(bench::HttpClient& http, const std::string& crew) {
  const auto r = http.request("POST", "/v1/crews/" + crew + "/calls", kCallBody);
  if (r.status != 201) throw StepFailed(crew + ": call answered HTTP " + std::to_string(r.status) + " " + r.body.substr(0, 300));
  const json c = json::parse(r.body);
  if (c.value("status", "") != "completed") throw StepFailed(crew + ": call ended " + r.body.substr(0, 300));
}

// A Crew folder whose one function is a no-op script that reads its inputs.
void make_crew(const fs::path& dir) {
  fs::create_directories(dir / ".agentworks");
  fs::create_directories(dir / "tools");
  const fs::path script = dir / "tools" / "noop.sh";
  std::ofstream(script) << "#!/bin/sh\nexec cat >/dev/null\n";
  fs::permissions(script, fs::perms::owner_all);
  std::ofstream(dir / ".agentworks" / "functions.json")
      << json{{"functions",
               {{{"name", "noop"},
                 {"description", "does nothing"},
                 {"inputs", {{"type", "object"}}},
                 {"run", {{"command", {"./tools/noop.sh"}}}},
                 {"timeout_seconds", 60}}}}}
             .dump(2);
}

void print_series(const char* name, const std::vector<std::int64_t>& samples) {
  const auto s = bench::summarize(samples);
  std::printf("  %-8s n=%-5zu p50 %8.3f ms  p99 %8.3f ms  max %8.3f ms\n", name, s.count, s.p50_ms, s.p99_ms, s.max_ms);
}

// One thread per Crew in `crews`, calling it back to back until `total` calls are done; calls per second.
double throughput(bench::BenchServer& server, const std::vector<std::string>& crews, std::size_t total) {
  return bench::throughput(static_cast<unsigned>(crews.size()), total, [&](unsigned w) {
    auto http = std::make_shared<bench::HttpClient>("127.0.0.1", server.port(), server.token());
    http->set_timeout(60s);
    return [http, crew = crews[w]] { call_and_wait(*http, crew); };
  });
}

int run(const Options& opt) {
  std::printf("agentworks-bench-runner: %zu alternated runs per series, %zu calls over %u runners\n"
              "load average at start: %s\n",
              opt.runs, opt.throughput_calls, opt.runners, bench::load_average().c_str());
  bench::BenchServer server(opt.server_binary, {"--crew-max-running", "8"}, opt.data_parent, 30s);
  bench::HttpClient http("127.0.0.1", server.port(), server.token());
  http.set_timeout(60s);
  const std::string url = "http://127.0.0.1:" + std::to_string(server.port());

  testing::TempDir root("aw-bench-runner-", opt.data_parent);
  make_crew(root.path() / "local");
  const auto reg = http.request("POST", "/v1/crews", json{{"crew_name", "local"}, {"dir", (root.path() / "local").string()}}.dump());
  if (reg.status != 201) throw StepFailed("registering the local Crew: HTTP " + std::to_string(reg.status) + " " + reg.body);

  // The serving computer: a HOME of its own, logged in to the server, one served Crew and runner per --runners.
  testing::TempHome computer(opt.data_parent);
  testing::Cli cli(computer.env());
  if (cli.login(url, server.token()).exit_code != 0) throw StepFailed("the serving computer's login failed");
  std::vector<std::string> served;
  std::vector<testing::Child> runners;
  for (unsigned i = 1; i <= opt.runners; ++i) {
    const std::string name = "served" + std::to_string(i);
    const fs::path dir = computer.home() / name;
    make_crew(dir);
    const auto r = cli.json({"crews", "register", name, "--dir", dir.string(), "--serve-here"});
    if (r.exit_code != 0) throw StepFailed("registering " + name + " --serve-here: " + r.describe());
    runners.push_back(cli.start({"crews", "serve", name}, computer.root(), "runner-" + name));
    bench::watch_process(runners.back().pid());
    served.push_back(name);
  }
  for (const auto& name : served) {
    if (!testing::wait_until([&] {
          const auto c = http.request("GET", "/v1/crews/" + name);
          return c.status == 200 && json::parse(c.body).at("served").at("online").get<bool>();
        }, 20s)) {
      throw StepFailed(name + "'s runner did not come online");
    }
  }

  for (int i = 0; i < 20; ++i) {  // warm-up: page cache, statements, the loader
    call_and_wait(http, "local");
    call_and_wait(http, served.front());
  }
  std::vector<std::int64_t> local;
  std::vector<std::int64_t> remote;
  for (std::size_t k = 0; k < opt.runs; ++k) {
    auto t0 = Clock::now();
    call_and_wait(http, "local");
    local.push_back(since_ns(t0));
    t0 = Clock::now();
    call_and_wait(http, served.front());
    remote.push_back(since_ns(t0));
  }
  const double local_rate = throughput(server, std::vector<std::string>(served.size(), "local"), opt.throughput_calls);
  const double served_rate = throughput(server, served, opt.throughput_calls);

  std::printf("\nend-to-end latency, call+wait of a no-op command (%zu alternated runs):\n", opt.runs);
  print_series("local", local);
  print_series("served", remote);
  const auto l = bench::summarize(local);
  const auto s = bench::summarize(remote);
  std::printf("\nadded by the runner: p50 %+.3f ms (x%.2f), p99 %+.3f ms (x%.2f)\n", s.p50_ms - l.p50_ms,
              s.p50_ms / l.p50_ms, s.p99_ms - l.p99_ms, s.p99_ms / l.p99_ms);
  std::printf("throughput, %u threads: local %.1f calls/s, served by %u runners %.1f calls/s (x%.2f)\n",
              opt.runners, local_rate, opt.runners, served_rate, served_rate / local_rate);
  std::printf("\nload average at end: %s\ngoal: the runner adds <= 10 ms p50: %s\n", bench::load_average().c_str(),
              s.p50_ms - l.p50_ms <= 10.0 ? "MET" : "MISSED");
  std::fflush(stdout);
  for (auto& r : runners) {
    bench::unwatch_process(r.pid());
    r.kill_and_wait();
  }
  bench::unwatch_process(server.pid());
  server.stop();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  CLI::App app{"agentworks-bench-runner: call -> completed through a Crew's runner against the server running it"};
  bench::add_program_options(app, opt, bench::kServer | bench::kCli, "the server data, the Crew folders and the "
                                                                     "serving computer's HOME");
  app.add_option("--runs", opt.runs, "alternated runs per latency series")->check(CLI::Range(1, 100000));
  app.add_option("--throughput-calls", opt.throughput_calls, "calls in each throughput series")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--runners", opt.runners, "served Crews, each with its own runner")->check(CLI::Range(1, 16));
  bench::add_watchdog_option(app, opt);
  CLI11_PARSE(app, argc, argv);
  bench::resolve_programs(opt, bench::kServer | bench::kCli);
  return bench::run_with_watchdog("agentworks-bench-runner", opt.max_seconds, [&] {
    try {
      return run(opt);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "agentworks-bench-runner: FAILED: %s\n", e.what());
      bench::kill_watched();
      return 1;
    }
  });
}
