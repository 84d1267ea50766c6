// agentworks-bench-bridge: benchmark of agentworks-bridge against a real agentworks-server on loopback
// (docs/benchmarks.md "Bridge"). Three measurements, in this order, in one bounded run:
//   1. idle RSS of the bridge holding --attachments attachments (all streams connected, idle --idle seconds);
//   2. catch-up of a --backlog message backlog sent while --backlog-sessions of those attachments are offline,
//      timed from `resume` until `status` shows every message cached (pending) in the journal;
//   3. `take` round trips (limit 1, one message each, offer commit included) from a socket client: p50/p99, next
//      to the sync floor measured in the same run (a 100-byte write + fdatasync in the bridge's state directory,
//      what the offer commit cannot do without); the goal is take p99 <= 2 x the floor's p99.
// A watchdog (bench_run.hpp) kills the server and the bridge and exits if the run exceeds --max-seconds.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "bench_rig.hpp"
#include "bench_run.hpp"
#include "http_client.hpp"
#include "latency_stats.hpp"
#include "process_watch.hpp"
#include "testing/bridge_client.hpp"
#include "testing/process_key.hpp"
#include "bench_options.hpp"

namespace bench = agentworks::bench;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

// The bridge's per-session quota (docs/protocol.md "Streams and the journal"): a backlog above it per session
// is not cached, so the backlog is spread over enough sessions.
constexpr std::size_t kSessionQuota = 2000;

struct Options : bench::ProgramOptions {
  std::size_t attachments = 100;
  double idle_s = 5;
  std::size_t backlog = 10000;
  std::size_t backlog_sessions = 5;
  std::size_t senders = 4;
  std::size_t takes = 2000;
  bool keep_home = false;
};


double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string session_id(std::size_t i) { return "bench-s" + std::to_string(i); }
std::string agent_name(std::size_t i) { return "bench-b" + std::to_string(i); }

double mib(std::uint64_t kib) { return static_cast<double>(kib) / 1024.0; }

// Sums a status field over the first `count` attachments (by session id) and counts connected streams.
struct StatusView {
  std::size_t connected = 0;
  std::size_t pending = 0;
  bool ok = false;
};
// The bridge may answer slowly while it is busy caching a backlog: the wait is generous and its length is kept.
StatusView view(agentworks::testing::BridgeClient& c, std::size_t count, double* slowest_ms = nullptr) {
  StatusView v;
  const auto t0 = Clock::now();
  const json s = c.call({{"op", "status"}}, 180s);
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  if (slowest_ms != nullptr) *slowest_ms = std::max(*slowest_ms, ms);
  if (!s.value("ok", false)) return v;
  v.ok = true;
  for (const auto& a : s.value("attachments", json::array())) {
    const std::string sid = a.value("session_id", "");
    bool mine = false;
    for (std::size_t i = 0; i < count && !mine; ++i) mine = sid == session_id(i);
    if (!mine) continue;
    if (a.value("stream", "") == "connected") ++v.connected;
    v.pending += a.value("pending", std::size_t{0});
  }
  return v;
}

bool wait_until(const std::function<bool()>& done, std::chrono::milliseconds timeout,
                std::chrono::milliseconds poll = 20ms) {
  const auto deadline = Clock::now() + timeout;
  while (Clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(poll);
  }
  return done();
}

// Sends `per_session` messages to each of the first `sessions` agents from `senders` threads.
std::size_t send_backlog(std::uint16_t port, const std::string& token, std::size_t sessions, std::size_t per_session,
                         std::size_t senders, std::string* first_error) {
  std::atomic<std::size_t> next{0}, accepted{0};
  const std::size_t total = sessions * per_session;
  std::mutex error_mutex;
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < senders; ++t) {
    threads.emplace_back([&] {
      bench::HttpClient client("127.0.0.1", port, token);
      client.set_timeout(30s);
      for (std::size_t k = next++; k < total; k = next++) {
        const std::string text = "bridge backlog " + std::to_string(k) + " " + std::string(60, 'x');
        const std::string body = "{\"target\":\"agent:" + agent_name(k % sessions) + "\",\"message\":\"" + text + "\"}";
        const auto r = client.request("POST", "/v1/messages", body);
        if (r.status >= 200 && r.status < 300) {
          ++accepted;
        } else {
          std::lock_guard lock(error_mutex);
          if (first_error->empty()) {
            *first_error = r.status == 0 ? r.error : "HTTP " + std::to_string(r.status) + " " + r.body.substr(0, 300);
          }
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  return accepted.load();
}

// `n` timed write + fdatasync pairs of 100 bytes on a fresh file in `dir` (the journal's device); empty on error.
std::vector<std::int64_t> sync_floor(const std::filesystem::path& dir, std::size_t n) {
  const auto file = dir / "sync-floor.bin";
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  std::vector<std::int64_t> samples;
  if (fd < 0) return samples;
  const std::string record(100, 'x');
  for (std::size_t i = 0; i < n; ++i) {
    const auto t0 = Clock::now();
    if (::write(fd, record.data(), record.size()) != static_cast<ssize_t>(record.size()) || ::fdatasync(fd) != 0) {
      samples.clear();
      break;
    }
    samples.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count());
  }
  ::close(fd);
  std::filesystem::remove(file);
  return samples;
}

int run(const Options& opt) {
  std::printf("agentworks-bench-bridge: %zu attachments, backlog %zu over %zu sessions, %zu takes\n", opt.attachments,
              opt.backlog, opt.backlog_sessions, opt.takes);
  std::printf("load average at start: %s\n", bench::load_average().c_str());
  const auto run_start = Clock::now();

  std::string error;
  const std::vector<std::string> server_args = {
      "--rate-limit-per-hour", "100000000", "--inbox-history", "1000000", "--max-inboxes-per-account", "1000000",
      "--max-inboxes-total", "1000000", "--max-agents-per-account", "1000000", "--max-agents-total", "1000000"};
  bench::BenchServer server(opt.server_binary, server_args, opt.data_parent, 30s);
  const std::string& token = server.token();
  const std::uint16_t port = server.port();
  const std::string url = "http://127.0.0.1:" + std::to_string(server.port());
  std::printf("server pid %d at %s\n", server.pid(), url.c_str());

  bench::BenchBridge bridge(opt.bridge_binary, opt.data_parent, url, token, 30s);
  std::printf("bridge pid %d, home %s\n", bridge.pid(), bridge.root().c_str());
  std::unique_ptr<agentworks::testing::BridgeClient> client =
      agentworks::testing::BridgeClient::open(bridge.socket_path(), &error, 30s);
  if (!client) {
    std::fprintf(stderr, "bridge socket: %s\n", error.c_str());
    return 2;
  }
  auto& c = *client;
  const auto rss_start = bench::rss_kib(bridge.pid()).value_or(0);

  // 1. Idle RSS with N attachments.
  const auto attach_start = Clock::now();
  for (std::size_t i = 0; i < opt.attachments; ++i) {
    const json a = c.call({{"op", "attach"}, {"provider", "claude"}, {"session_id", session_id(i)},
                           {"agent_name", agent_name(i)}, {"purpose", "bridge benchmark receiver"},
                           {"config", bridge.config_path()}});
    if (!a.value("ok", false)) {
      std::fprintf(stderr, "attach %zu failed: %s\n", i, a.dump().c_str());
      return 2;
    }
  }
  const double attach_s = seconds_since(attach_start);
  StatusView v;
  if (!wait_until([&] { v = view(c, opt.attachments); return v.connected == opt.attachments; }, 60s, 50ms)) {
    std::fprintf(stderr, "only %zu of %zu streams connected after 60 s\n", v.connected, opt.attachments);
    return 2;
  }
  const double connected_s = seconds_since(attach_start);
  std::uint64_t rss_idle_max = 0;
  const auto idle_start = Clock::now();
  while (seconds_since(idle_start) < opt.idle_s) {
    rss_idle_max = std::max(rss_idle_max, bench::rss_kib(bridge.pid()).value_or(0));
    std::this_thread::sleep_for(100ms);
  }
  const auto rss_idle = bench::rss_kib(bridge.pid()).value_or(0);
  v = view(c, opt.attachments);
  // The floor of the catch-up's stall figure: the same status request when the bridge is idle.
  double idle_status_max_ms = 0;
  for (int k = 0; k < 50; ++k) view(c, opt.attachments, &idle_status_max_ms);
  std::printf("\n[1] idle RSS: %zu attachments attached in %.2f s, all streams connected after %.2f s "
              "(%zu connected after idling %.0f s)\n",
              opt.attachments, attach_s, connected_s, v.connected, opt.idle_s);
  std::printf("    bridge VmRSS: %.1f MiB at start (0 attachments), %.1f MiB idle with %zu (max while idle %.1f MiB)\n",
              mib(rss_start), mib(rss_idle), opt.attachments, mib(rss_idle_max));

  // 2. Catch-up of a backlog sent while the receiving sessions are offline.
  const std::size_t sessions = std::min(opt.backlog_sessions, opt.attachments);
  const std::size_t per_session = (opt.backlog + sessions - 1) / sessions;
  if (per_session > kSessionQuota) {
    std::printf("note: %zu messages per session exceed the bridge's %zu-message session quota; the excess is not "
                "cached and catch-up cannot complete. Use --backlog-sessions >= %zu.\n",
                per_session, kSessionQuota, (opt.backlog + kSessionQuota - 1) / kSessionQuota);
  }
  for (std::size_t i = 0; i < sessions; ++i) {
    const json a = c.call({{"op", "offline"}, {"provider", "claude"}, {"session_id", session_id(i)}});
    if (!a.value("ok", false)) {
      std::fprintf(stderr, "offline %zu failed: %s\n", i, a.dump().c_str());
      return 2;
    }
  }
  const auto send_start = Clock::now();
  const std::size_t sent = send_backlog(port, token, sessions, per_session, opt.senders, &error);
  const double send_s = seconds_since(send_start);
  std::printf("\n[2] catch-up: sent %zu of %zu messages to %zu offline sessions in %.2f s (%.0f/s)%s%s\n", sent,
              sessions * per_session, sessions, send_s, static_cast<double>(sent) / send_s,
              error.empty() ? "" : "; first failure: ", error.c_str());
  const std::size_t expected = std::min(sent, sessions * kSessionQuota);
  const auto resume_start = Clock::now();
  for (std::size_t i = 0; i < sessions; ++i) {
    // R-H11: resume names the provider process now running the session; the benchmark stands in for it.
    const json a = c.call({{"op", "resume"}, {"provider", "claude"}, {"session_id", session_id(i)},
                           {"process", agentworks::testing::own_process_key()}});
    if (!a.value("ok", false)) {  // a refused resume would leave catch-up waiting for nothing
      std::fprintf(stderr, "resume %zu failed: %s\n", i, a.dump().c_str());
      return 2;
    }
  }
  std::vector<std::pair<double, std::size_t>> progress;
  double next_mark = 1.0;
  double slowest_status_ms = 0;
  const bool caught_up = wait_until(
      [&] {
        v = view(c, sessions, &slowest_status_ms);
        const double t = seconds_since(resume_start);
        if (t >= next_mark) {
          progress.emplace_back(t, v.pending);
          next_mark += 1.0;
        }
        return v.pending >= expected;
      },
      240s, 10ms);
  const double catchup_s = seconds_since(resume_start);
  const auto rss_cached = bench::rss_kib(bridge.pid()).value_or(0);
  std::printf("    %s: %zu of %zu cached (pending) %.2f s after resume (%.0f messages/s)\n",
              caught_up ? "caught up" : "NOT caught up within 240 s", v.pending, expected, catchup_s,
              static_cast<double>(v.pending) / catchup_s);
  std::printf("    progress (s, pending):");
  for (const auto& [t, p] : progress) std::printf(" %.0f:%zu", t, p);
  std::printf("\n    slowest status round trip during catch-up: %.0f ms (the bridge's loop is busy caching); "
              "slowest of 50 when idle: %.1f ms\n",
              slowest_status_ms, idle_status_max_ms);
  std::printf("    bridge VmRSS with the backlog cached: %.1f MiB\n", mib(rss_cached));

  // 3. take round trips, limit 1, one message each (the offer commit is inside the round trip).
  std::vector<std::int64_t> samples;
  std::size_t empty = 0, failed = 0;
  std::string take_error;
  const std::size_t takes = std::min(opt.takes, v.pending);
  // The CPU each process spends per take: a take waits for the bridge, the server (the release check) and this
  // client in turn, so their sum is time no take can go below, whatever the disk.
  const pid_t self = ::getpid();
  const auto cpu_before = std::array{bench::cpu_seconds(bridge.pid()), bench::cpu_seconds(server.pid()),
                                     bench::cpu_seconds(self)};
  const auto takes_start = Clock::now();
  for (std::size_t k = 0; k < takes; ++k) {
    const json req = {{"op", "take"}, {"provider", "claude"}, {"session_id", session_id(k % sessions)}, {"limit", 1}};
    const auto t0 = Clock::now();
    const json a = c.call(req);
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count();
    if (!a.value("ok", false)) {
      ++failed;
      if (take_error.empty()) take_error = a.dump();
      continue;
    }
    if (a.value("messages", json::array()).size() != 1) {
      ++empty;
      if (take_error.empty()) take_error = a.dump().substr(0, 300);
      continue;
    }
    samples.push_back(ns);
  }
  const double takes_s = seconds_since(takes_start);
  const auto cpu_after = std::array{bench::cpu_seconds(bridge.pid()), bench::cpu_seconds(server.pid()),
                                    bench::cpu_seconds(self)};
  const auto take_stats = bench::summarize(samples);
  std::printf("\n[3] take (limit 1): %zu round trips with one message each in %.2f s, %zu empty, %zu errors%s%s\n",
              take_stats.count, takes_s, empty, failed, take_error.empty() ? "" : "; first: ", take_error.c_str());
  std::printf("    latency p50 %.3f ms, p99 %.3f ms, max %.3f ms\n", take_stats.p50_ms, take_stats.p99_ms,
              take_stats.max_ms);
  const std::size_t floor_syncs = std::max<std::size_t>(takes, 200);
  const auto floor_cpu_before = bench::cpu_seconds(self);
  const auto floor_stats = bench::summarize(sync_floor(bridge.root(), floor_syncs));
  const auto floor_cpu_after = bench::cpu_seconds(self);
  // The release check is a round trip to the server: a keep-alive GET /v1/health is its floor.
  std::vector<std::int64_t> health_samples;
  {
    bench::HttpClient health("127.0.0.1", port, token);
    for (std::size_t k = 0; k < std::max<std::size_t>(takes, 200); ++k) {
      const auto t0 = Clock::now();
      if (health.request("GET", "/v1/health").status != 200) {
        health_samples.clear();
        break;
      }
      health_samples.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count());
    }
  }
  const auto health_stats = bench::summarize(health_samples);
  std::printf("    server round trip floor (keep-alive GET /v1/health): p50 %.3f ms, p99 %.3f ms; take p99 / (sync + "
              "round trip p99) = %.2f\n",
              health_stats.p50_ms, health_stats.p99_ms,
              take_stats.p99_ms / std::max(1e-9, floor_stats.p99_ms + health_stats.p99_ms));
  const double take_ratio = floor_stats.p99_ms > 0 ? take_stats.p99_ms / floor_stats.p99_ms : 0;
  std::printf("    sync floor (100-byte write + fdatasync, same directory): p50 %.3f ms, p99 %.3f ms (%zu); "
              "take p99 / floor p99 = %.2f\n",
              floor_stats.p50_ms, floor_stats.p99_ms, floor_stats.count, take_ratio);
  std::array<double, 3> cpu_us{};  // bridge, server, this client: CPU per take
  bool cpu_known = take_stats.count > 0;
  for (std::size_t i = 0; i < cpu_us.size(); ++i) {
    cpu_known = cpu_known && cpu_before[i] && cpu_after[i];
    if (cpu_known) cpu_us[i] = (*cpu_after[i] - *cpu_before[i]) * 1e6 / static_cast<double>(take_stats.count);
  }
  if (cpu_known && floor_cpu_before && floor_cpu_after && floor_stats.count > 0) {
    // The sync's own CPU (the kernel's work for the write and the flush) is in the floor as well as in the take.
    const double sync_cpu_us = (*floor_cpu_after - *floor_cpu_before) * 1e6 / static_cast<double>(floor_stats.count);
    const double chain_us = cpu_us[0] + cpu_us[1] + cpu_us[2];
    const double beyond_us = std::max(0.0, chain_us - sync_cpu_us);
    std::printf("    CPU per take: bridge %.0f us, server %.0f us, this client %.0f us; %.0f us in all, %.0f us beyond"
                " the sync's own %.0f us, which the goal leaves at most the sync floor's p99 (%.0f us) for: %s\n",
                cpu_us[0], cpu_us[1], cpu_us[2], chain_us, beyond_us, sync_cpu_us, floor_stats.p99_ms * 1000,
                beyond_us <= floor_stats.p99_ms * 1000 ? "within it" : "BEYOND it at this cost");
  } else {
    std::printf("    CPU per take: not measured (a process could not be read)\n");
  }

  std::printf("\nload average at end: %s (run took %.1f s)\n", bench::load_average().c_str(), seconds_since(run_start));
  const bool rss_met = rss_idle > 0 && mib(rss_idle) < 20.0;
  const bool catchup_met = caught_up && catchup_s < 10.0 && expected >= opt.backlog;
  const bool take_met = take_stats.count > 0 && floor_stats.count > 0 && take_ratio <= 2.0;
  const bool stall_met = caught_up && slowest_status_ms <= 50.0;
  std::printf("targets:\n  idle RSS with %zu attachments < 20 MiB: %.1f MiB  %s\n", opt.attachments, mib(rss_idle),
              rss_met ? "MET" : "MISSED");
  std::printf("  catch-up of %zu messages < 10 s: %.2f s  %s\n", expected, catchup_s, catchup_met ? "MET" : "MISSED");
  std::printf("  no socket request waits > 50 ms during the catch-up: slowest status %.0f ms  %s\n", slowest_status_ms,
              stall_met ? "MET" : "MISSED");
  std::printf("  take incl. commit p99 <= 2 x the sync floor's p99: %.3f ms / %.3f ms = %.2f  %s\n", take_stats.p99_ms,
              floor_stats.p99_ms, take_ratio, take_met ? "MET" : "MISSED");
  std::fflush(stdout);

  client.reset();
  bench::unwatch_process(bridge.pid());
  bridge.stop();
  if (opt.keep_home) {
    bridge.keep_home();
    std::printf("bridge home kept: %s\n", bridge.root().c_str());
  }
  bench::unwatch_process(server.pid());
  server.stop();
  // A run that measured less than it was asked to is a failed run, whatever the targets say.
  if (!caught_up || sent < sessions * per_session || take_stats.count < takes || takes == 0 ||
      floor_stats.count == 0 || health_stats.count == 0) {
    std::fprintf(stderr, "FAILED: measured less than asked: %zu of %zu sent, %s, %zu of %zu takes with a message\n",
                 sent, sessions * per_session, caught_up ? "caught up" : "catch-up incomplete", take_stats.count,
                 takes);
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  CLI::App app{"agentworks-bench-bridge: bridge idle RSS, backlog catch-up and take latency (docs/benchmarks.md)"};
  bench::add_program_options(app, opt, bench::kServer | bench::kBridge, "the server data and the bridge's temp HOME");
  app.add_option("--attachments", opt.attachments, "attachments held for the idle RSS measurement")->check(CLI::Range(1, 1000));
  app.add_option("--idle", opt.idle_s, "seconds to idle before reading RSS")->check(CLI::Range(0.0, 120.0));
  app.add_option("--backlog", opt.backlog, "messages in the catch-up backlog")->check(CLI::Range(1, 100000));
  app.add_option("--backlog-sessions", opt.backlog_sessions, "offline sessions the backlog is spread over")
      ->check(CLI::Range(1, 1000));
  app.add_option("--senders", opt.senders, "HTTP sender threads for the backlog")->check(CLI::Range(1, 64));
  app.add_option("--takes", opt.takes, "take round trips to time")->check(CLI::Range(1, 100000));
  bench::add_watchdog_option(app, opt);
  app.add_flag("--keep-home", opt.keep_home, "keep the bridge's temp HOME (journal, bridge.log) for inspection");
  CLI11_PARSE(app, argc, argv);
  bench::resolve_programs(opt, bench::kServer | bench::kBridge);
  return bench::run_with_watchdog("agentworks-bench-bridge", opt.max_seconds, [&] { return run(opt); });
}
