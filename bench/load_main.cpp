// agentworks-bench-load: load benchmark for agentworks-server (docs/benchmarks.md).
//
// Mode "load" (default): N receiver agents each hold an SSE attachment stream; M sender
// threads POST messages to random receivers for D seconds; a paced reader reads named
// mailboxes. Reports send rate and latency, read latency, send-to-SSE delivery latency
// and server RSS.
// With --store postgresql it starts a PostgreSQL cluster of its own and --replicas servers on one database; the
// receivers' streams and the senders are spread round-robin over them, and each send crosses replicas.
// Mode "streams" (--streams S): S agents each hold one SSE stream for --hold seconds (over --replicas servers),
// with --stream-rate paced sends during the hold; reports RSS per stream and the send -> SSE latency, then checks
// every stream still delivers.
//
// The run is bounded: a watchdog kills the server and exits if anything hangs.
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iterator>
#include <thread>
#include <vector>

#include "bench_pg_store.hpp"
#include "bench_rig.hpp"
#include "bench_run.hpp"
#include "bench_setup.hpp"
#include "commit_floor.hpp"
#include "cpu_budget.hpp"
#include "http_client.hpp"
#include "latency_stats.hpp"
#include "load_workers.hpp"
#include "pg_floor.hpp"
#include "process_watch.hpp"
#include "sse_stream_pool.hpp"
#include "bench_options.hpp"

namespace bench = agentworks::bench;
using namespace std::chrono_literals;

namespace {

struct Options : bench::ProgramOptions {
  std::string url;  // connect to a running server instead of starting one
  std::string token;
  int server_pid = 0;  // for RSS when --url is used
  std::size_t receivers = 100;
  std::size_t senders = 8;
  double duration_s = 10;
  double reads_per_second = 100;
  std::size_t message_bytes = 100;
  std::size_t streams = 0;
  double hold_s = 10;
  double stream_rate = 0;            // streams mode: paced sends/s during the hold
  std::size_t source_addresses = 1;  // streams mode: client source addresses 127.0.0.1..N
  std::string prefix = "bench-r";
  std::vector<std::string> server_args;
  std::string store = "sqlite";  // or "postgresql": a PostgreSQL cluster of the benchmark's own
  std::size_t replicas = 1;      // servers on that one database (postgresql only)
  bool pg_fsync = true;          // false: a diagnostic without durability
  std::string stream_after;      // load mode: resume the streams at this mailbox cursor (empty: from the start)
  bool reads_in_history = false;  // load mode: each read at a random point below stream_after
};


bool parse_url(const std::string& url, bench::Endpoint* endpoint) {
  const std::string prefix = "http://127.0.0.1:";
  if (url.rfind(prefix, 0) != 0) return false;
  const unsigned long port = std::strtoul(url.c_str() + prefix.size(), nullptr, 10);
  if (port == 0 || port > 65535) return false;
  endpoint->port = static_cast<std::uint16_t>(port);
  return true;
}

void print_latency(const char* what, const bench::LatencySummary& s) {
  std::printf("%-22s n=%zu p50=%.2f ms p99=%.2f ms max=%.2f ms\n", what, s.count, s.p50_ms, s.p99_ms, s.max_ms);
}

void print_failures(const char* what, const bench::RequestStats& stats) {
  if (stats.failures() == 0) return;
  std::printf("%s failures:", what);
  for (const auto& [status, n] : stats.failures_by_status) std::printf(" status %d x%llu", status,
                                                                        static_cast<unsigned long long>(n));
  std::printf("; first: %s\n", stats.first_failure.c_str());
}

bool wait_for(const std::function<bool()>& done, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

std::vector<std::string> names_of(const std::vector<bench::BenchAgent>& agents) {
  std::vector<std::string> names;
  for (const auto& a : agents) names.push_back(a.name);
  return names;
}

// Receiver j streams from replica j % N; sender i talks to replica i % N and, with N > 1, sends only to receivers
// streaming from another replica, so every measured delivery crosses replicas.
std::vector<std::string> sender_targets(const std::vector<std::string>& names, std::size_t sender, std::size_t replicas) {
  if (replicas <= 1) return names;
  std::vector<std::string> out;
  for (std::size_t j = 0; j < names.size(); ++j) {
    if (j % replicas != sender % replicas) out.push_back(names[j]);
  }
  return out;
}

// The receivers' streams: receiver j streams from server j % N, each server's through a pool of its own.
class StreamPools {
 public:
  // False with *error naming the server when a stream cannot be opened.
  bool open(const std::vector<bench::Endpoint>& endpoints, const std::vector<bench::BenchAgent>& agents,
            std::size_t source_addresses, std::string* error, const std::string& after = "") {
    targets_.assign(endpoints.size(), {});
    for (std::size_t j = 0; j < agents.size(); ++j)
      targets_[j % endpoints.size()].push_back({agents[j].attachment_id, agents[j].name});
    for (std::size_t r = 0; r < endpoints.size(); ++r) {
      pools_.push_back(std::make_unique<bench::SseStreamPool>(endpoints[r].host, endpoints[r].port, endpoints[r].token,
                                                              source_addresses));
      if (!targets_[r].empty() && !pools_[r]->open(targets_[r], error, after)) {
        *error = "opening streams on server " + std::to_string(r) + " after " +
                 std::to_string(pools_[r]->ready_streams()) + ": " + *error;
        return false;
      }
      pools_[r]->start();
    }
    return true;
  }
  std::uint64_t ready() const { return total(&bench::SseStreamPool::ready_streams); }
  std::uint64_t failed() const { return total(&bench::SseStreamPool::failed_streams); }
  std::uint64_t delivered() const { return total(&bench::SseStreamPool::delivered); }
  std::uint64_t highest_seq() const {
    std::uint64_t highest = 0;
    for (const auto& p : pools_) highest = std::max(highest, p->highest_seq());
    return highest;
  }
  std::size_t held_by(std::size_t server) const { return targets_[server].size(); }
  void measure_from_now() {
    for (auto& p : pools_) p->set_measure_since(bench::steady_now_ns());
  }
  std::vector<std::int64_t> take_latencies() {
    std::vector<std::int64_t> all;
    for (auto& p : pools_) {
      auto l = p->take_latencies();
      all.insert(all.end(), l.begin(), l.end());
    }
    return all;
  }
  void stop() {
    for (auto& p : pools_) p->stop();
  }

 private:
  template <typename Count>
  std::uint64_t total(Count count) const {
    std::uint64_t sum = 0;
    for (const auto& p : pools_) sum += ((*p).*count)();
    return sum;
  }
  std::vector<std::vector<bench::StreamTarget>> targets_;
  std::vector<std::unique_ptr<bench::SseStreamPool>> pools_;
};

// The size of the SQLite store's WAL, sampled every 250 ms while the load runs (the WAL must stay bounded).
class WalSampler {
 public:
  explicit WalSampler(std::filesystem::path wal) : wal_(std::move(wal)) {
    if (!wal_.empty()) thread_ = std::thread([this] { loop(); });
  }
  ~WalSampler() { stop(); }
  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  std::uintmax_t max_bytes() const { return max_; }
  std::uintmax_t now_bytes() const { return size(); }
  bool active() const { return !wal_.empty(); }

 private:
  std::uintmax_t size() const {
    std::error_code ec;
    const auto s = std::filesystem::file_size(wal_, ec);
    return ec ? 0 : s;
  }
  void loop() {
    while (!stop_) {
      max_ = std::max<std::uintmax_t>(max_, size());
      std::this_thread::sleep_for(250ms);
    }
  }
  std::filesystem::path wal_;
  std::atomic<bool> stop_{false};
  std::atomic<std::uintmax_t> max_{0};
  std::thread thread_;
};

// The run's CPU per accepted send and the rates it allows on this machine, whatever the scheduling or locking.
void print_cost(const bench::CpuBudget::PerSend& c, std::size_t servers, bool postgres) {
  std::printf("cpu per accepted send: servers %.0f us (their event-loop threads %.0f us)", c.servers_us, c.loops_us);
  if (postgres) std::printf(", PostgreSQL %.0f us", c.postgres_us);
  std::printf("; %.0f us in all\n", c.total_us);
  // What predicts more cores: each replica does its share of the sends, PostgreSQL does all of them.
  if (servers > 1) {
    std::printf("cpu per accepted send per replica: %.0f us (%zu replicas share the sends)%s\n",
                c.servers_us / static_cast<double>(servers), servers,
                postgres ? "; PostgreSQL's cost is per send, whatever the number of replicas" : "");
  }
  std::printf("ceilings at that cost: %zu event-loop thread%s busy all the time %.0f sends/s; %d cores busy with %s"
              " only %.0f sends/s\n",
              servers, servers == 1 ? "" : "s", c.loops_ceiling_per_s, c.cores,
              postgres ? "the servers and PostgreSQL" : "the server", c.cores_ceiling_per_s);
}

// A floor measured before and after the load: true when the two differ by more than 20 % (the machine changed under
// the run, nothing is concluded). A server that beats the floor's mean says the floor is not one: noted.
bool judge_floor(double before, double after, double rate) {
  const double floor = (before + after) / 2;
  if (rate > floor) {
    std::printf("  NOTE: the server exceeded the floor (%.0f > %.0f/s): check the floor's shape before trusting the "
                "ratio\n", rate, floor);
  }
  return std::max(before, after) > 1.2 * std::min(before, after);
}

int run_load(const Options& opt, const std::vector<bench::Endpoint>& endpoints, const std::vector<pid_t>& pids,
             const std::filesystem::path& wal, pid_t postmaster, const std::string& pg_url) {
  const std::size_t n = endpoints.size();
  const bench::Endpoint& first = endpoints.front();
  bench::HttpClient setup(first.host, first.port, first.token);
  std::vector<bench::BenchAgent> agents;
  std::string error;
  const auto setup_start = std::chrono::steady_clock::now();
  if (!bench::setup_agents(setup, opt.prefix, opt.receivers, &agents, &error)) {
    std::fprintf(stderr, "FAILED: setup: %s\n", error.c_str());
    return 1;
  }
  StreamPools pools;
  if (!pools.open(endpoints, agents, 1, &error, opt.stream_after)) {
    std::fprintf(stderr, "FAILED: %s\n", error.c_str());
    return 1;
  }
  const auto ready = [&] { return pools.ready(); };
  const auto failed = [&] { return pools.failed(); };
  const auto delivered = [&] { return pools.delivered(); };
  if (!wait_for([&] { return ready() + failed() >= agents.size(); }, 30s) || failed() > 0) {
    std::fprintf(stderr, "FAILED: streams not ready: %llu ready, %llu failed of %zu\n",
                 static_cast<unsigned long long>(ready()), static_cast<unsigned long long>(failed()), agents.size());
    return 1;
  }
  const double setup_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - setup_start).count();
  std::printf("setup: %zu receivers registered, attached and streaming (round-robin over %zu server%s) in %.1f s\n",
              agents.size(), n, n == 1 ? "" : "s", setup_s);
  std::printf("server rss before load: %s; load average before: %s\n", bench::rss_text(pids.front()).c_str(),
              bench::load_average().c_str());

  // The floor of the same run, before and after the load: what bare SQLite commits reach on this file system, or
  // what pgbench reaches with the transaction a batch of sends makes (one replica on PostgreSQL).
  const double floor_seconds = std::min(3.0, opt.duration_s);
  const auto names = names_of(agents);
  std::uint64_t delivered_before_load = 0;
  std::unique_ptr<bench::PgFloorRunner> pg_floor;
  bench::PgFloor pg_floor_before;
  if (!pg_url.empty() && n == 1) {
    // One message to each receiver first: the floor reads the run's own connection, agents and conversations.
    const auto warm = bench::send_each(first, names, 0, names.size(), opt.message_bytes);
    if (warm.failures() > 0 || !wait_for([&] { return delivered() >= warm.ok; }, 30s)) {
      std::fprintf(stderr, "FAILED: the sends before the floor: %s\n", warm.first_failure.c_str());
      return 1;
    }
    delivered_before_load = delivered();
    pg_floor = std::make_unique<bench::PgFloorRunner>(pg_url, std::filesystem::temp_directory_path(), opt.senders,
                                                      opt.message_bytes);
    if (!pg_floor->prepare(&error) || !(pg_floor_before = pg_floor->measure(floor_seconds)).error.empty()) {
      std::fprintf(stderr, "FAILED: the pgbench floor: %s%s\n", error.c_str(), pg_floor_before.error.c_str());
      return 1;
    }
  }
  bench::CommitFloor floor_one_before, floor_group_before;
  if (!wal.empty()) {
    floor_one_before = bench::measure_commit_floor(wal.parent_path(), 1, floor_seconds, opt.message_bytes);
    floor_group_before = bench::measure_commit_floor(wal.parent_path(), opt.senders, floor_seconds, opt.message_bytes);
    if (!floor_one_before.error.empty() || !floor_group_before.error.empty()) {
      std::fprintf(stderr, "FAILED: the commit floor: %s%s\n", floor_one_before.error.c_str(),
                   floor_group_before.error.c_str());
      return 1;
    }
  }
  std::atomic<bool> stop{false};
  bench::RssSampler sampler(pids.front());
  WalSampler wal_sampler(wal);
  std::vector<bench::CpuClock> cpu;
  for (const pid_t pid : pids) cpu.emplace_back(pid);
  std::vector<pid_t> measured;  // a --url server without --server-pid has none
  std::copy_if(pids.begin(), pids.end(), std::back_inserter(measured), [](pid_t p) { return p > 0; });
  bench::CpuBudget budget(measured, postmaster);
  pools.measure_from_now();
  const auto start = std::chrono::steady_clock::now();
  std::vector<bench::RequestStats> send_stats(opt.senders);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < opt.senders; ++i) {
    threads.emplace_back([&, i, to = sender_targets(names, i, n)] {
      send_stats[i] = bench::run_sender(endpoints[i % n], to, opt.message_bytes, static_cast<std::uint32_t>(1000 + i), stop);
    });
  }
  bench::RequestStats read_stats;
  std::uint64_t rows_read = 0;
  const std::uint64_t history_end =
      opt.reads_in_history ? std::strtoull(opt.stream_after.c_str() + 1, nullptr, 10) : 0;
  std::thread reader([&] {
    read_stats = bench::run_reader(first, names, opt.reads_per_second, 7, stop, history_end, &rows_read);
  });
  std::this_thread::sleep_for(std::chrono::duration<double>(opt.duration_s));
  stop.store(true);
  for (auto& t : threads) t.join();
  reader.join();
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  budget.stop();
  std::vector<std::string> cpu_text;
  for (const auto& c : cpu) cpu_text.push_back(c.report(elapsed));

  bench::RequestStats sends;
  for (auto& s : send_stats) sends.merge(std::move(s));
  // Let in-flight deliveries arrive (bounded).
  const bool all_delivered = wait_for([&] { return delivered() - delivered_before_load >= sends.ok; }, 10s);
  sampler.stop();
  wal_sampler.stop();
  const auto delivery = bench::summarize(pools.take_latencies());
  const std::uint64_t delivered_count = delivered() - delivered_before_load;
  const std::uint64_t failed_count = failed();
  pools.stop();

  std::printf("run: %.1f s, %zu senders, %zu receivers, %zu-byte messages, reader paced at %.0f/s\n", elapsed,
              opt.senders, opt.receivers, opt.message_bytes, opt.reads_per_second);
  std::printf("store: %s, %zu server%s%s\n", opt.store.c_str(), n, n == 1 ? "" : "s (replicas)",
              n > 1 ? "; every send goes to a receiver streaming from another replica" : "");
  std::printf("accepted sends: %llu (%.0f/s), failed: %llu\n", static_cast<unsigned long long>(sends.ok),
              static_cast<double>(sends.ok) / elapsed, static_cast<unsigned long long>(sends.failures()));
  print_failures("send", sends);
  print_latency("send latency", bench::summarize(std::move(sends.latencies_ns)));
  std::printf("reads: %llu (%.0f/s), failed: %llu, messages per read: %.1f\n",
              static_cast<unsigned long long>(read_stats.ok), static_cast<double>(read_stats.ok) / elapsed,
              static_cast<unsigned long long>(read_stats.failures()),
              read_stats.ok > 0 ? static_cast<double>(rows_read) / static_cast<double>(read_stats.ok) : 0.0);
  print_failures("read", read_stats);
  print_latency("read latency", bench::summarize(std::move(read_stats.latencies_ns)));
  std::printf("delivered over SSE: %llu of %llu accepted%s, streams failed: %llu\n",
              static_cast<unsigned long long>(delivered_count), static_cast<unsigned long long>(sends.ok),
              all_delivered ? "" : " (INCOMPLETE after 10 s)", static_cast<unsigned long long>(failed_count));
  print_latency("send-to-SSE latency", delivery);
  std::printf("server rss: max during run %s, after %s%s\n",
              pids.front() > 0 ? bench::mib_text(sampler.max_kib()).c_str() : "n/a",
              bench::rss_text(pids.front()).c_str(), n > 1 ? " (replica 0)" : "");
  if (wal_sampler.active()) {
    std::error_code ec;
    const auto db_bytes = std::filesystem::file_size(wal.parent_path() / "server.db", ec);
    std::printf("server WAL: max %s during the run, %s after; database %s\n",
                bench::mib_text(wal_sampler.max_bytes() / 1024).c_str(),
                bench::mib_text(wal_sampler.now_bytes() / 1024).c_str(),
                bench::mib_text(ec ? 0 : db_bytes / 1024).c_str());
  }
  for (std::size_t r = 0; r < cpu_text.size(); ++r) {
    std::printf("cpu during the run, server %zu (2 cores shared by everything): %s\n", r, cpu_text[r].c_str());
  }
  std::printf("load average at end: %s\n", bench::load_average().c_str());
  const double rate = static_cast<double>(sends.ok) / elapsed;
  const bench::CpuBudget::PerSend cost = budget.per_send(sends.ok);
  if (cost.total_us > 0) {
    print_cost(cost, n, postmaster > 0);
  } else if (opt.url.empty()) {
    std::printf("cpu per accepted send: not measured (a server or PostgreSQL process could not be read)\n");
  }
  std::printf("target >= 2000 accepted sends/s: %s (%.0f/s)\n", rate >= 2000 ? "MET" : "MISSED", rate);
  std::printf("target p99 send-to-SSE < 20 ms: %s (%.2f ms)\n", delivery.count > 0 && delivery.p99_ms < 20 ? "MET" : "MISSED",
              delivery.p99_ms);
  bool floor_moved = false;
  if (pg_floor) {
    const bench::PgFloor after = pg_floor->measure(floor_seconds);
    if (!after.error.empty()) {
      std::fprintf(stderr, "FAILED: the pgbench floor: %s\n", after.error.c_str());
      return 1;
    }
    const double floor = (pg_floor_before.sends_per_second + after.sends_per_second) / 2;
    std::printf("pgbench floor (the transaction of %zu sends, one client, same database), before / after the load: "
                "%.0f / %.0f sends/s (%.0f / %.0f transactions/s)\n",
                opt.senders, pg_floor_before.sends_per_second, after.sends_per_second,
                pg_floor_before.transactions_per_second, after.transactions_per_second);
    std::printf("target >= 0.8 of the pgbench floor: %s (%.2f)\n", rate >= 0.8 * floor ? "MET" : "MISSED",
                rate / floor);
    floor_moved = judge_floor(pg_floor_before.sends_per_second, after.sends_per_second, rate);
  }
  if (!wal.empty()) {
    // The floor again after the load: the two must agree, or the machine changed under the run.
    const auto one = bench::measure_commit_floor(wal.parent_path(), 1, floor_seconds, opt.message_bytes);
    const auto group = bench::measure_commit_floor(wal.parent_path(), opt.senders, floor_seconds, opt.message_bytes);
    if (!one.error.empty() || !group.error.empty()) {
      std::fprintf(stderr, "FAILED: the commit floor: %s%s\n", one.error.c_str(), group.error.c_str());
      return 1;
    }
    std::printf("commit floor (SQLite WAL, synchronous=FULL, same directory), before / after the load: 1 row per "
                "commit %.0f / %.0f rows/s; %zu rows per commit %.0f / %.0f rows/s (%.0f / %.0f commits/s)\n",
                floor_one_before.rows_per_second, one.rows_per_second, opt.senders,
                floor_group_before.rows_per_second, group.rows_per_second, floor_group_before.commits_per_second,
                group.commits_per_second);
    const double group_floor = (floor_group_before.rows_per_second + group.rows_per_second) / 2;
    const double one_floor = (floor_one_before.rows_per_second + one.rows_per_second) / 2;
    const double ratio = rate / group_floor;
    std::printf("target >= 0.8 of the %zu-rows-per-commit floor: %s (%.2f; %.2f of the 1-row floor)\n", opt.senders,
                ratio >= 0.8 ? "MET" : "MISSED", ratio, rate / one_floor);
    // Where the loop thread alone rules the target out: busy all the time at this cost it cannot reach it.
    if (cost.loops_us > 0 && cost.loops_ceiling_per_s < 0.8 * group_floor) {
      std::printf("  beyond one event-loop thread at this cost: busy all the time it allows %.0f sends/s, 0.8 of"
                  " the floor is %.0f/s, which needs <= %.0f us of loop CPU per send (it spent %.0f us)\n",
                  cost.loops_ceiling_per_s, 0.8 * group_floor, 1e6 / (0.8 * group_floor), cost.loops_us);
    }
    floor_moved = judge_floor(floor_group_before.rows_per_second, group.rows_per_second, rate);
  }
  // One line for scripts (bench/scripts/replicas.sh, history_cost.sh: last_cursor is where the next run's streams
  // resume with --stream-after).
  std::printf("result: store=%s replicas=%zu sends_per_s=%.0f p50_ms=%.2f p99_ms=%.2f delivered=%llu accepted=%llu"
              " cpu_us_per_send=%.0f cores_ceiling_per_s=%.0f server_us_per_send=%.0f postgres_us_per_send=%.0f"
              " last_cursor=m%llu\n",
              opt.store.c_str(), n, rate, delivery.p50_ms, delivery.p99_ms,
              static_cast<unsigned long long>(delivered_count), static_cast<unsigned long long>(sends.ok),
              cost.total_us, cost.cores_ceiling_per_s, cost.servers_us, cost.postgres_us,
              static_cast<unsigned long long>(pools.highest_seq()));
  // A run that measured nothing, or lost deliveries, is a failure, not a number.
  if (sends.ok == 0) {
    std::fprintf(stderr, "FAILED: no send was accepted (first failure: %s)\n", sends.first_failure.c_str());
    return 1;
  }
  if (!all_delivered || delivery.count == 0 || failed_count > 0) {
    std::fprintf(stderr, "FAILED: %llu of %llu accepted messages delivered over SSE, %llu measured, %llu streams failed\n",
                 static_cast<unsigned long long>(delivered_count), static_cast<unsigned long long>(sends.ok),
                 static_cast<unsigned long long>(delivery.count), static_cast<unsigned long long>(failed_count));
    return 1;
  }
  if (floor_moved) {
    std::fprintf(stderr, "REFUSED: the floor moved by more than 20 %% between before and after the load: run it "
                 "again on a quiet machine\n");
    return 3;
  }
  return 0;
}

// Streams mode: S agents hold one SSE stream each, spread round-robin over the servers (replicas); during the hold
// paced senders send --stream-rate messages/s spread over them (with replicas, each to a stream on another one).
// Reports each server's RSS per held stream and the send -> SSE latency under that load, then proves every stream
// still delivers with one message to each agent.
int run_streams(const Options& opt, const std::vector<bench::Endpoint>& endpoints, const std::vector<pid_t>& pids) {
  const std::size_t n = endpoints.size();
  bench::HttpClient setup(endpoints.front().host, endpoints.front().port, endpoints.front().token);
  std::vector<bench::BenchAgent> agents;
  std::string error;
  std::printf("server rss at start: %s; load average: %s\n", bench::rss_text(pids.front()).c_str(),
              bench::load_average().c_str());
  if (!bench::setup_agents(setup, opt.prefix, opt.streams, &agents, &error)) {
    std::fprintf(stderr, "setup failed: %s\n", error.c_str());
    return 1;
  }
  std::vector<std::uint64_t> before_kib(n, 0);
  for (std::size_t r = 0; r < n; ++r) {
    before_kib[r] = bench::rss_kib(pids[r]).value_or(0);
    std::printf("server %zu rss after registering %zu agents and attachments: %s\n", r, agents.size(),
                bench::rss_text(pids[r]).c_str());
  }
  StreamPools pools;
  const auto open_start = std::chrono::steady_clock::now();
  if (!pools.open(endpoints, agents, opt.source_addresses, &error)) {
    std::fprintf(stderr, "FAILED: %s\n", error.c_str());
    return 1;
  }
  const auto ready = [&] { return pools.ready(); };
  const auto failed = [&] { return pools.failed(); };
  const auto delivered = [&] { return pools.delivered(); };
  const bool opened = wait_for([&] { return ready() + failed() >= agents.size(); }, 120s);
  const double open_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - open_start).count();
  std::printf("streams: %llu ready, %llu failed of %zu over %zu server%s from %zu source address%s (opened in %.1f s)\n",
              static_cast<unsigned long long>(ready()), static_cast<unsigned long long>(failed()), agents.size(), n,
              n == 1 ? "" : "s", opt.source_addresses, opt.source_addresses == 1 ? "" : "es", open_s);
  if (!opened || failed() > 0) return 1;

  // The hold: idle streams (heartbeats on) under the paced sends.
  const auto names = names_of(agents);
  std::vector<std::unique_ptr<bench::RssSampler>> samplers;
  for (const pid_t pid : pids) samplers.push_back(std::make_unique<bench::RssSampler>(pid));
  pools.measure_from_now();
  std::atomic<bool> stop{false};
  std::vector<bench::RequestStats> paced(opt.stream_rate > 0 ? opt.senders : 0);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < paced.size(); ++i) {
    threads.emplace_back([&, i, to = sender_targets(names, i, n)] {
      paced[i] = bench::run_sender(endpoints[i % n], to, opt.message_bytes, static_cast<std::uint32_t>(2000 + i), stop,
                                   opt.stream_rate / static_cast<double>(paced.size()));
    });
  }
  const auto hold_start = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(opt.hold_s));
  stop.store(true);
  for (auto& t : threads) t.join();
  const double held_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - hold_start).count();
  bench::RequestStats sends_during;
  for (auto& s : paced) sends_during.merge(std::move(s));
  const bool paced_delivered = wait_for([&] { return delivered() >= sends_during.ok; }, 30s);
  const auto under_load = bench::summarize(pools.take_latencies());
  double worst_kib_per_stream = 0;
  for (std::size_t r = 0; r < n; ++r) {
    const std::uint64_t held = samplers[r]->max_kib();
    const double per_stream = pools.held_by(r) == 0 || held < before_kib[r]
                                  ? 0
                                  : static_cast<double>(held - before_kib[r]) / static_cast<double>(pools.held_by(r));
    worst_kib_per_stream = std::max(worst_kib_per_stream, per_stream);
    std::printf("server %zu holding %zu streams for %.0f s: rss max %s, %.1f KiB per stream over the registered "
                "agents\n", r, pools.held_by(r), held_s, bench::mib_text(held).c_str(), per_stream);
  }
  if (opt.stream_rate > 0) {
    print_failures("send", sends_during);
    std::printf("sends during the hold: %llu accepted (%.0f/s, asked %.0f/s), %llu failed; delivered %s\n",
                static_cast<unsigned long long>(sends_during.ok), static_cast<double>(sends_during.ok) / held_s,
                opt.stream_rate, static_cast<unsigned long long>(sends_during.failures()),
                paced_delivered ? "all" : "NOT ALL within 30 s");
    print_latency("send-to-SSE latency", under_load);
  }

  // Prove the streams are live: one message to every agent, each must arrive on its stream.
  const std::uint64_t delivered_before = delivered();
  std::vector<bench::RequestStats> stats(opt.senders);
  threads.clear();
  const std::size_t per = (names.size() + opt.senders - 1) / opt.senders;
  for (std::size_t i = 0; i < opt.senders; ++i) {
    threads.emplace_back([&, i] {
      stats[i] = bench::send_each(endpoints[i % n], names, i * per, (i + 1) * per, opt.message_bytes);
    });
  }
  for (auto& t : threads) t.join();
  bench::RequestStats sends;
  for (auto& s : stats) sends.merge(std::move(s));
  const bool all = wait_for([&] { return delivered() >= delivered_before + sends.ok; }, 60s);
  print_failures("send", sends);
  std::printf("one message to each agent: %llu accepted, %llu delivered over SSE%s\n",
              static_cast<unsigned long long>(sends.ok),
              static_cast<unsigned long long>(delivered() - delivered_before), all ? "" : " (INCOMPLETE after 60 s)");
  std::uint64_t max_kib = 0;
  for (std::size_t r = 0; r < n; ++r) {
    max_kib = std::max(max_kib, samplers[r]->max_kib());
    samplers[r]->stop();
  }
  std::printf("server rss after: %s (max of any server while holding and delivering %s)\n",
              bench::rss_text(pids.front()).c_str(), bench::mib_text(max_kib).c_str());
  if (pids.front() > 0) {
    std::printf("target %zu streams with server rss < 100 MB: %s (max %s)\n", agents.size(),
                max_kib * 1024 < 100'000'000ull ? "MET" : "MISSED", bench::mib_text(max_kib).c_str());
    std::printf("target <= 16 KiB rss per held stream: %s (%.1f KiB)\n",
                worst_kib_per_stream <= 16 ? "MET" : "MISSED", worst_kib_per_stream);
  }
  if (opt.stream_rate > 0) {
    std::printf("target send-to-SSE p99 <= 50 ms at %.0f sends/s over %zu streams: %s (%.2f ms)\n", opt.stream_rate,
                agents.size(), under_load.count > 0 && under_load.p99_ms <= 50 ? "MET" : "MISSED", under_load.p99_ms);
  }
  std::printf("result: streams=%zu servers=%zu kib_per_stream=%.1f sends_per_s=%.0f p50_ms=%.2f p99_ms=%.2f\n",
              agents.size(), n, worst_kib_per_stream, static_cast<double>(sends_during.ok) / held_s,
              under_load.p50_ms, under_load.p99_ms);
  pools.stop();
  const bool paced_ok = opt.stream_rate <= 0 || (sends_during.ok > 0 && sends_during.failures() == 0 &&
                                                 paced_delivered && under_load.count > 0);
  return all && paced_ok && sends.failures() == 0 && failed() == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  CLI::App app{"agentworks-bench-load: load benchmark for agentworks-server (see docs/benchmarks.md)"};
  bench::add_program_options(app, opt, bench::kServer, "the started server's temporary data directory");
  app.add_option("--url", opt.url, "use a running server at http://127.0.0.1:PORT instead of starting one");
  app.add_option("--token", opt.token, "login token for --url");
  app.add_option("--server-pid", opt.server_pid, "pid of the --url server, to report its RSS");
  app.add_option("--receivers", opt.receivers, "receiver agents, each with one SSE stream")->check(CLI::Range(1, 100000));
  app.add_option("--senders", opt.senders, "concurrent keep-alive sender connections")->check(CLI::Range(1, 256));
  app.add_option("--duration", opt.duration_s, "seconds of load")->check(CLI::Range(0.1, 600.0));
  app.add_option("--reads-per-second", opt.reads_per_second, "paced mailbox reads per second (0 = unpaced)");
  app.add_option("--message-bytes", opt.message_bytes, "message text size")->check(CLI::Range(40, 20000));
  app.add_option("--streams", opt.streams, "streams mode: hold this many SSE streams instead of the load run")
      ->check(CLI::Range(0, 100000));
  app.add_option("--hold", opt.hold_s, "streams mode: seconds to hold the streams")->check(CLI::Range(0.0, 600.0));
  app.add_option("--stream-rate", opt.stream_rate,
                 "streams mode: messages/s sent during the hold, spread over the streams (0 = none)")
      ->check(CLI::Range(0.0, 100000.0));
  app.add_option("--source-addresses", opt.source_addresses,
                 "streams mode: connect the streams from 127.0.0.1 .. 127.0.0.N (each brings its own ephemeral ports)")
      ->check(CLI::Range(1, 250));
  app.add_option("--stream-after", opt.stream_after,
                 "load mode: open the receivers' streams at this mailbox cursor (m<N>, as a result line's last_cursor "
                 "gives), as the bridge resumes; without it every stream first replays its whole mailbox")
      ->check([](const std::string& c) {
        const bool ok = c.size() > 1 && c[0] == 'm' &&
                        c.find_first_not_of("0123456789", 1) == std::string::npos;
        return ok ? std::string() : "a mailbox cursor is m followed by digits (m0, m1234), not '" + c + "'";
      });
  app.add_flag("--reads-in-history", opt.reads_in_history,
               "load mode: start each mailbox read at a random point of the history below --stream-after (a full "
               "page's room below it) instead of following its cursor from the start");
  app.add_option("--prefix", opt.prefix, "agent name prefix");
  app.add_option("--server-arg", opt.server_args, "extra argument for the started server (repeatable)");
  app.add_option("--store", opt.store,
                 "sqlite (the server's default) or postgresql (a PostgreSQL cluster of the benchmark's own under /tmp, "
                 "migrated, shared by --replicas servers)")
      ->check(CLI::IsMember({"sqlite", "postgresql"}));
  app.add_option("--replicas", opt.replicas, "servers (replicas) on the one PostgreSQL database; needs --store postgresql")
      ->check(CLI::Range(1, 3));
  app.add_option("--pg-fsync", opt.pg_fsync,
                 "postgresql: sync every commit like the SQLite store (default true); false is a diagnostic only");
  CLI11_PARSE(app, argc, argv);
  if (opt.replicas > 1 && opt.store != "postgresql") {
    std::fprintf(stderr, "--replicas %zu needs --store postgresql: SQLite servers cannot share a store\n", opt.replicas);
    return 2;
  }
  if (opt.store == "postgresql" && !opt.url.empty()) {
    std::fprintf(stderr, "--store postgresql starts its own servers: drop --url\n");
    return 2;
  }
  if (opt.reads_in_history && opt.stream_after.empty()) {
    std::fprintf(stderr, "--reads-in-history reads below the history's end: give it as --stream-after m<N>\n");
    return 2;
  }
  if (!opt.stream_after.empty() && opt.streams > 0) {
    std::fprintf(stderr, "--stream-after is for the load mode: drop it with --streams\n");
    return 2;
  }
  if (opt.source_addresses > 1 && !opt.url.empty()) {
    std::fprintf(stderr, "--source-addresses needs a started server listening on 127.0.0.1: drop --url\n");
    return 2;
  }

  // Thousands of sockets on both ends: raise the descriptor limit (the server inherits it).
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &lim);
  }
  std::signal(SIGPIPE, SIG_IGN);
  const double budget = (opt.streams > 0 ? opt.hold_s : opt.duration_s) + 180;
  bench::arm_watchdog("agentworks-bench-load", static_cast<unsigned>(budget));

  std::vector<bench::Endpoint> endpoints;
  std::vector<pid_t> pids;
  std::unique_ptr<bench::BenchPgStore> pg;
  std::vector<std::unique_ptr<bench::BenchServer>> servers;
  if (!opt.url.empty()) {
    bench::Endpoint endpoint;
    if (!parse_url(opt.url, &endpoint) || opt.token.empty()) {
      std::fprintf(stderr, "--url must be http://127.0.0.1:PORT (loopback only) and needs --token\n");
      return 2;
    }
    endpoint.token = opt.token;
    endpoints.push_back(endpoint);
    pids.push_back(opt.server_pid);
  } else {
    // Raised limits: the contract's 40 messages/hour per conversation, 300 inboxes and
    // 100 agents per account would otherwise cap the benchmark, not the server's speed.
    std::vector<std::string> args = {"--rate-limit-per-hour",    "100000000", "--max-inboxes-per-account", "1000000",
                                     "--max-inboxes-total",      "1000000",   "--inbox-history",           "1000000",
                                     "--max-agents-per-account", "1000000",   "--max-agents-total",        "1000000"};
    args.insert(args.end(), opt.server_args.begin(), opt.server_args.end());
    const std::string binary = opt.server_binary.empty() ? bench::built_program("server", "agentworks-server") : opt.server_binary;
    try {
      if (opt.store == "postgresql") {
        pg = std::make_unique<bench::BenchPgStore>(binary, opt.data_parent, opt.pg_fsync);
        std::printf("postgresql: cluster in %s on 127.0.0.1:%d (fsync %s), database %s migrated\n",
                    pg->dir().c_str(), pg->port(), opt.pg_fsync ? "on" : "OFF: a diagnostic, not durable",
                    pg->url().c_str());
      }
      for (std::size_t r = 0; r < opt.replicas; ++r) {
        const std::string token = servers.empty() ? "" : servers.front()->token();
        servers.push_back(std::make_unique<bench::BenchServer>(binary, args, opt.data_parent, 15s,
                                                               pg ? pg->url() : "", token));
        const auto& server = *servers.back();
        endpoints.push_back({"127.0.0.1", server.port(), server.token()});
        pids.push_back(server.pid());
        std::printf("server %zu: %s pid %d on 127.0.0.1:%u, data in %s\n", r, binary.c_str(),
                    static_cast<int>(server.pid()), static_cast<unsigned>(server.port()), server.data_dir().c_str());
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "FAILED: could not start the %s store and %zu server(s) of %s: %s\n", opt.store.c_str(),
                   opt.replicas, binary.c_str(), e.what());
      return 1;
    }
  }
  std::fflush(stdout);
  // The SQLite store the benchmark started: its WAL is sampled during the load.
  const std::filesystem::path wal = opt.store == "sqlite" && !servers.empty()
                                        ? std::filesystem::path(servers.front()->data_dir()) / "data" / "server.db-wal"
                                        : std::filesystem::path();
  const int rc =
      opt.streams > 0 ? run_streams(opt, endpoints, pids)
                      : run_load(opt, endpoints, pids, wal, pg ? pg->postmaster_pid() : 0, pg ? pg->url() : "");
  std::fflush(stdout);
  for (auto& server : servers) server->stop();
  return rc;
}
