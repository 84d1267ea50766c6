// agentworks-bench-soak: a long run of continuous sends and takes through a real agentworks-server and
// agentworks-bridge (docs/benchmarks.md "Soak"). A sender thread posts messages at a fixed rate to a few attached
// agents; the main thread takes them from the bridge and acknowledges each as processed, as an agent would. Every
// minute it records both processes' RSS and the sizes of the server's store and WAL and the bridge's journal and
// WAL, so a leak or an unbounded file shows as a line that keeps rising. Exits 1 when a send, take or ack failed
// or the takes fell behind, 2 when setup failed.
#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "bench_rig.hpp"
#include "bench_run.hpp"
#include "http_client.hpp"
#include "proc_stats.hpp"
#include "process_watch.hpp"
#include "testing/bridge_client.hpp"
#include "testing/wait.hpp"
#include "bench_options.hpp"

namespace bench = agentworks::bench;
namespace testing = agentworks::testing;
namespace fs = std::filesystem;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

struct Options : bench::ProgramOptions {
  unsigned minutes = 30;
  unsigned rate = 100;  // messages per second, all agents together
  std::size_t agents = 4;
  unsigned sample_seconds = 60;
};

struct Sample {
  double t_min = 0;
  std::uint64_t sent = 0;
  std::uint64_t taken = 0;
  double server_rss_mib = 0;
  double bridge_rss_mib = 0;
  double server_db_mib = 0;
  double server_wal_mib = 0;
  double journal_mib = 0;
  double journal_wal_mib = 0;
};

double file_mib(const fs::path& p) {
  std::error_code ec;
  const auto size = fs::file_size(p, ec);
  return ec ? 0.0 : static_cast<double>(size) / (1024.0 * 1024.0);
}

double rss_mib(pid_t pid) { return static_cast<double>(bench::rss_kib(pid).value_or(0)) / 1024.0; }

std::string session_of(std::size_t i) { return "soak-session-" + std::to_string(i); }
std::string agent_of(std::size_t i) { return "soak-" + std::to_string(i); }

// Growth of one column from the first sample after warm-up to the last, as a ratio (1.0: flat).
double growth(const std::vector<Sample>& samples, double Sample::*field) {
  const std::size_t first = samples.size() > 2 ? 1 : 0;
  const double a = samples[first].*field;
  const double b = samples.back().*field;
  return a > 0 ? b / a : 0.0;
}

int run(const Options& opt) {
  std::printf("agentworks-bench-soak: %u min, %u messages/s to %zu agents, a sample every %u s\n", opt.minutes,
              opt.rate, opt.agents, opt.sample_seconds);
  std::printf("load average at start: %s\n", bench::load_average().c_str());
  bench::BenchServer server(opt.server_binary, {"--rate-limit-per-hour", "100000000"}, opt.data_parent, 30s);
  const std::string url = "http://127.0.0.1:" + std::to_string(server.port());
  bench::BenchBridge bridge(opt.bridge_binary, opt.data_parent, url, server.token(), 30s);
  std::string error;
  auto client = testing::BridgeClient::open(bridge.socket_path(), &error, 30s);
  if (!client) {
    std::fprintf(stderr, "bridge socket: %s\n", error.c_str());
    return 2;
  }
  for (std::size_t i = 0; i < opt.agents; ++i) {
    const json a = client->call({{"op", "attach"}, {"provider", "claude"}, {"session_id", session_of(i)},
                                 {"agent_name", agent_of(i)}, {"purpose", "soak"}, {"config", bridge.config_path()}});
    if (!a.value("ok", false)) {
      std::fprintf(stderr, "attach %zu failed: %s\n", i, a.dump().c_str());
      return 2;
    }
  }
  const bool connected = testing::wait_until(
      [&] {
        std::size_t n = 0;
        for (const auto& at : client->call({{"op", "status"}}).value("attachments", json::array())) {
          n += at.value("stream", "") == "connected" ? 1U : 0U;
        }
        return n == opt.agents;
      },
      30s, 20ms);
  if (!connected) {
    std::fprintf(stderr, "the streams did not connect within 30 s\n");
    return 2;
  }

  const fs::path server_db = fs::path(server.data_dir()) / "data" / "server.db";
  // The bench's temp HOME sets XDG_STATE_HOME to <root>/state (testing/temp_home.cpp).
  const fs::path journal = fs::path(bridge.root()) / "state" / "agentworks" / "journal.db";
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> sent{0};
  std::atomic<std::uint64_t> send_failures{0};
  std::string first_send_error;
  std::thread sender([&] {
    bench::HttpClient http("127.0.0.1", server.port(), server.token());
    http.set_timeout(30s);
    const auto interval = std::chrono::nanoseconds(1'000'000'000LL / std::max(1U, opt.rate));
    auto next = Clock::now();
    for (std::uint64_t k = 0; !stop.load(); ++k) {
      next += interval;
      std::this_thread::sleep_until(next);
      const json body = {{"target", "agent:" + agent_of(k % opt.agents)}, {"message", "soak " + std::to_string(k)}};
      const auto r = http.request("POST", "/v1/messages", body.dump());
      if (r.status >= 200 && r.status < 300) {
        sent.fetch_add(1);
      } else if (send_failures.fetch_add(1) == 0) {
        first_send_error = "HTTP " + std::to_string(r.status) + " " + r.body + r.error;
      }
    }
  });

  std::uint64_t taken = 0;
  std::uint64_t take_failures = 0;
  std::string first_take_error;
  std::vector<Sample> samples;
  const auto start = Clock::now();
  const auto end = start + std::chrono::minutes(opt.minutes);
  auto next_sample = start;
  const auto record = [&] {
    Sample s;
    s.t_min = std::chrono::duration<double>(Clock::now() - start).count() / 60.0;
    s.sent = sent.load();
    s.taken = taken;
    s.server_rss_mib = rss_mib(server.pid());
    s.bridge_rss_mib = rss_mib(bridge.pid());
    s.server_db_mib = file_mib(server_db);
    s.server_wal_mib = file_mib(fs::path(server_db.string() + "-wal"));
    s.journal_mib = file_mib(journal);
    s.journal_wal_mib = file_mib(fs::path(journal.string() + "-wal"));
    samples.push_back(s);
    std::printf("  %5.1f min  sent %8llu  taken %8llu  RSS server %6.1f bridge %6.1f MiB  store %7.1f + WAL %6.1f MiB"
                "  journal %6.1f + WAL %6.1f MiB\n",
                s.t_min, static_cast<unsigned long long>(s.sent), static_cast<unsigned long long>(s.taken),
                s.server_rss_mib, s.bridge_rss_mib, s.server_db_mib, s.server_wal_mib, s.journal_mib,
                s.journal_wal_mib);
    std::fflush(stdout);
  };
  while (Clock::now() < end) {
    if (Clock::now() >= next_sample) {
      record();
      next_sample += std::chrono::seconds(opt.sample_seconds);
    }
    bool any = false;
    for (std::size_t i = 0; i < opt.agents; ++i) {
      const json t = client->call({{"op", "take"}, {"provider", "claude"}, {"session_id", session_of(i)}});
      if (!t.value("ok", false)) {
        if (take_failures++ == 0) first_take_error = t.dump();
        continue;
      }
      for (const auto& m : t.value("messages", json::array())) {
        any = true;
        ++taken;
        const json a = client->call({{"op", "ack"}, {"provider", "claude"}, {"session_id", session_of(i)},
                                     {"message_id", m.value("message_id", "")}, {"delivery", "processed"}});
        if (!a.value("ok", false) && take_failures++ == 0) first_take_error = a.dump();
      }
    }
    if (!any) std::this_thread::sleep_for(5ms);
  }
  stop = true;
  sender.join();
  // What was sent last is taken before the final sample.
  testing::wait_until(
      [&] {
        for (std::size_t i = 0; i < opt.agents; ++i) {
          const json t = client->call({{"op", "take"}, {"provider", "claude"}, {"session_id", session_of(i)}});
          taken += t.value("messages", json::array()).size();
        }
        return taken >= sent.load();
      },
      60s, 20ms);
  record();

  std::printf("\nload average at end: %s\n", bench::load_average().c_str());
  std::printf("growth from the first sample after warm-up to the last (1.00 = flat):\n");
  std::printf("  server RSS %.2f, bridge RSS %.2f, server WAL %.2f MiB max, bridge journal WAL %.2f MiB max\n",
              growth(samples, &Sample::server_rss_mib), growth(samples, &Sample::bridge_rss_mib),
              [&] {
                double m = 0;
                for (const auto& s : samples) m = std::max(m, s.server_wal_mib);
                return m;
              }(),
              [&] {
                double m = 0;
                for (const auto& s : samples) m = std::max(m, s.journal_wal_mib);
                return m;
              }());
  const auto& last = samples.back();
  if (last.sent > 0) {
    std::printf("  server store %.0f bytes per message sent, bridge journal %.0f bytes per message taken\n",
                last.server_db_mib * 1024 * 1024 / static_cast<double>(last.sent),
                last.journal_mib * 1024 * 1024 / static_cast<double>(std::max<std::uint64_t>(1, last.taken)));
  }
  const bool kept_up = last.taken >= last.sent;
  std::printf("sent %llu, taken %llu, send failures %llu%s%s, take/ack failures %llu%s%s\n",
              static_cast<unsigned long long>(last.sent), static_cast<unsigned long long>(last.taken),
              static_cast<unsigned long long>(send_failures.load()), first_send_error.empty() ? "" : ": ",
              first_send_error.c_str(), static_cast<unsigned long long>(take_failures),
              first_take_error.empty() ? "" : ": ", first_take_error.c_str());
  client.reset();
  bridge.stop();
  server.stop();
  const bool measured = last.sent > 0 && samples.size() >= 2 && last.journal_mib > 0 && last.server_db_mib > 0;
  return measured && kept_up && send_failures.load() == 0 && take_failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  CLI::App app{"agentworks-bench-soak: RSS and file sizes over a long run of sends and takes (docs/benchmarks.md)"};
  bench::add_program_options(app, opt, bench::kServer | bench::kBridge, "the server data and the bridge's temp HOME");
  app.add_option("--minutes", opt.minutes, "how long the sends and takes run")->check(CLI::Range(1, 24 * 60));
  app.add_option("--rate", opt.rate, "messages per second, all agents together")->check(CLI::Range(1, 5000));
  app.add_option("--agents", opt.agents, "attached receiving agents")->check(CLI::Range(1, 100));
  app.add_option("--sample-seconds", opt.sample_seconds, "seconds between samples")->check(CLI::Range(5, 3600));
  CLI11_PARSE(app, argc, argv);
  bench::resolve_programs(opt, bench::kServer | bench::kBridge);
  return bench::run_with_watchdog("agentworks-bench-soak", opt.minutes * 60 + 300, [&] { return run(opt); });
}
