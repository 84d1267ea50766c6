// agentworks-bench-wakeups: durable wakeups on a real agentworks-server (docs/benchmarks.md "Wakeups").
//   due -> stream   for each --tick-seconds T: one agent attached with its SSE stream open (what the bridge holds);
//                   rounds of 20 wakeups due one second apart; the time from a wakeup's due second to its message on
//                   the stream, p50/p99/max, against the floor: the tick T (a fixed tick fires a wakeup at most T
//                   late, T/2 on average).
//   10,000 pending  500 agents with 20 wakeups each, due in 29 days: the server's RSS before and after, and its CPU
//                   per tick idle with none pending (the floor) and with all 10,000 pending; then the same 10,000
//                   made due while no chat receives (the worst tick: a full page of 100 examined and passed over).
// Any failed step ends the run with exit 1.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "agentworks/utc_time.hpp"
#include "bench_options.hpp"
#include "bench_rig.hpp"
#include "bench_run.hpp"
#include "http_client.hpp"
#include "latency_stats.hpp"
#include "process_watch.hpp"
#include "proc_stats.hpp"
#include "testing/sse_client.hpp"

namespace bench = agentworks::bench;
using json = nlohmann::json;
using namespace std::chrono_literals;

namespace {

struct Options : bench::ProgramOptions {
  Options() { max_seconds = 900; }
  std::vector<int> ticks = {1, 10};
  int rounds = 3;
  int pending_agents = 500;
  int idle_seconds = 20;
};

struct StepFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

json ok_json(const bench::HttpResult& r, int status, const std::string& what) {
  if (r.status != status)
    throw StepFailed(what + ": HTTP " + std::to_string(r.status) + " " + r.body.substr(0, 300) + r.error);
  return json::parse(r.body);
}

std::int64_t unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Due -> on the stream, `rounds` x 20 samples (ns) for one tick.
std::vector<std::int64_t> due_to_stream(const Options& opt, int tick) {
  bench::BenchServer server(opt.server_binary, {"--wakeup-tick-seconds", std::to_string(tick)}, opt.data_parent, 30s);
  bench::HttpClient http("127.0.0.1", server.port(), server.token());
  ok_json(http.request("POST", "/v1/agents", R"({"agent_name":"waker"})"), 201, "register");
  const json att = ok_json(http.request("POST", "/v1/attachments",
                                        R"({"agent_name":"waker","purpose":"bench","provider":"claude",)"
                                        R"("native_session_id":"bench-wake"})"),
                           201, "attach");
  agentworks::testing::SseStream stream("http://127.0.0.1:" + std::to_string(server.port()),
                                        "/v1/attachments/" + att.at("attachment_id").get<std::string>() + "/stream",
                                        server.token());
  if (stream.status() != 200 || !stream.next_event_named("ready")) throw StepFailed("the stream did not open");
  static const std::regex id_in_text(R"(Wakeup (wku_[0-9a-f]+))");
  std::vector<std::int64_t> samples;
  for (int round = 0; round < opt.rounds; ++round) {
    std::map<std::string, std::int64_t> due;  // wakeup id -> due second
    const auto start = static_cast<std::int64_t>(std::time(nullptr)) + 2;
    for (int i = 0; i < 20; ++i) {
      const json w = ok_json(http.request("POST", "/v1/agents/waker/wakeups",
                                          json{{"at", agentworks::utc_text(start + i)}, {"note", "bench"}}.dump()),
                             200, "schedule");
      due[w.at("wakeup_id").get<std::string>()] = w.at("due_at").get<std::int64_t>();
    }
    while (!due.empty()) {
      const auto ev = stream.next_event(std::chrono::seconds(30 + 2 * tick));
      if (!ev) throw StepFailed(std::to_string(due.size()) + " wakeups never reached the stream");
      const json m = json::parse(ev->data, nullptr, false);
      if (!m.is_object() || m.value("kind", "") != "wakeup") continue;
      std::smatch match;
      const std::string text = m.value("message", "");
      if (!std::regex_search(text, match, id_in_text)) throw StepFailed("a wakeup text without its id: " + text);
      const auto it = due.find(match[1].str());
      if (it == due.end()) throw StepFailed("a wakeup came twice or unasked: " + text);
      samples.push_back((unix_ms() - it->second * 1000) * 1'000'000);
      due.erase(it);
    }
  }
  bench::unwatch_process(server.pid());
  server.stop();
  return samples;
}

double cpu_over(pid_t pid, int seconds) {
  const auto before = bench::cpu_seconds(pid);
  std::this_thread::sleep_for(std::chrono::seconds(seconds));
  const auto after = bench::cpu_seconds(pid);
  if (!before || !after) throw StepFailed("cannot read the server's CPU time");
  return *after - *before;
}

void pending_load(const Options& opt) {
  const std::vector<std::string> args = {"--wakeup-tick-seconds", "1", "--max-agents-per-account",
                                         std::to_string(opt.pending_agents)};
  bench::BenchServer server(opt.server_binary, args, opt.data_parent, 30s);
  bench::HttpClient http("127.0.0.1", server.port(), server.token());
  http.set_timeout(60s);
  for (int a = 0; a < opt.pending_agents; ++a)
    ok_json(http.request("POST", "/v1/agents", json{{"agent_name", "agent" + std::to_string(a)}}.dump()), 201,
            "register");
  const auto rss0 = bench::rss_kib(server.pid()).value_or(0);
  const double idle0 = cpu_over(server.pid(), opt.idle_seconds);
  const auto t0 = std::chrono::steady_clock::now();
  for (int a = 0; a < opt.pending_agents; ++a)
    for (int i = 0; i < 20; ++i)
      ok_json(http.request("POST", "/v1/agents/agent" + std::to_string(a) + "/wakeups",
                           json{{"after_minutes", 29 * 1440 + i}, {"note", "pending " + std::to_string(i)}}.dump()),
              200, "schedule");
  const double schedule_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto total = opt.pending_agents * 20;
  const auto rss1 = bench::rss_kib(server.pid()).value_or(0);
  const double idle1 = cpu_over(server.pid(), opt.idle_seconds);
  bench::unwatch_process(server.pid());
  server.stop();

  // The worst tick: every pending wakeup due and none of their chats receiving. Made due by a server whose clock
  // is not moved: the same number scheduled 1 minute ahead, then waited for.
  bench::BenchServer due_server(opt.server_binary, args, opt.data_parent, 30s);
  bench::HttpClient http2("127.0.0.1", due_server.port(), due_server.token());
  http2.set_timeout(60s);
  for (int a = 0; a < opt.pending_agents; ++a) {
    ok_json(http2.request("POST", "/v1/agents", json{{"agent_name", "agent" + std::to_string(a)}}.dump()), 201,
            "register");
    for (int i = 0; i < 20; ++i)
      ok_json(http2.request("POST", "/v1/agents/agent" + std::to_string(a) + "/wakeups",
                            json{{"after_minutes", 1}, {"note", "due " + std::to_string(i)}}.dump()),
              200, "schedule");
  }
  std::this_thread::sleep_for(62s);  // every one of them is due now; nobody receives
  const double due_cpu = cpu_over(due_server.pid(), opt.idle_seconds);
  bench::unwatch_process(due_server.pid());
  due_server.stop();

  const double per_tick_floor = idle0 * 1000.0 / opt.idle_seconds;
  std::printf("\n%d pending wakeups on one server (%d agents, --wakeup-tick-seconds 1, %d s per CPU window):\n", total,
              opt.pending_agents, opt.idle_seconds);
  std::printf("  scheduling them: %.1f s (%.0f/s over one keep-alive connection)\n", schedule_s, total / schedule_s);
  std::printf("  server RSS: %.1f MiB before, %.1f MiB with them (+%.1f MiB)\n", static_cast<double>(rss0) / 1024.0,
              static_cast<double>(rss1) / 1024.0,
              (static_cast<double>(rss1) - static_cast<double>(rss0)) / 1024.0);
  std::printf("  server CPU per tick: %.3f ms with none pending (floor), %.3f ms with %d pending (x%.2f), "
              "%.3f ms with %d due and no chat receiving (x%.2f)\n",
              per_tick_floor, idle1 * 1000.0 / opt.idle_seconds, total,
              idle1 / std::max(idle0, 1e-9), due_cpu * 1000.0 / opt.idle_seconds, total,
              due_cpu / std::max(idle0, 1e-9));
}

int run(const Options& opt) {
  std::printf("agentworks-bench-wakeups: %d rounds of 20 wakeups per tick\nload average at start: %s\n", opt.rounds,
              bench::load_average().c_str());
  for (const int tick : opt.ticks) {
    const auto s = bench::summarize(due_to_stream(opt, tick));
    std::printf("\ndue -> on the agent's stream, --wakeup-tick-seconds %d (floor: the tick, %d ms):\n", tick,
                tick * 1000);
    std::printf("  n=%zu p50 %.0f ms (x%.2f of the tick)  p99 %.0f ms (x%.2f)  max %.0f ms\n", s.count, s.p50_ms,
                s.p50_ms / (tick * 1000.0), s.p99_ms, s.p99_ms / (tick * 1000.0), s.max_ms);
  }
  pending_load(opt);
  std::printf("\nload average at end: %s\n", bench::load_average().c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  CLI::App app{"agentworks-bench-wakeups: wakeup due -> stream latency against the tick, and 10,000 pending"};
  bench::add_program_options(app, opt, bench::kServer, "the server data");
  app.add_option("--tick-seconds", opt.ticks, "the ticks to measure (each 1-60)")->check(CLI::Range(1, 60));
  app.add_option("--rounds", opt.rounds, "rounds of 20 wakeups per tick")->check(CLI::Range(1, 100));
  app.add_option("--pending-agents", opt.pending_agents, "agents with 20 pending wakeups each")
      ->check(CLI::Range(1, 2000));
  app.add_option("--cpu-seconds", opt.idle_seconds, "length of each CPU window")->check(CLI::Range(5, 600));
  bench::add_watchdog_option(app, opt);
  CLI11_PARSE(app, argc, argv);
  bench::resolve_programs(opt, bench::kServer);
  return bench::run_with_watchdog("agentworks-bench-wakeups", opt.max_seconds, [&] {
    try {
      return run(opt);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "agentworks-bench-wakeups: FAILED: %s\n", e.what());
      bench::kill_watched();
      return 1;
    }
  });
}
