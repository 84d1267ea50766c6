#include "load_workers.hpp"

#include <chrono>
#include <random>
#include <thread>

#include "http_client.hpp"
#include "sse_stream_pool.hpp"

namespace agentworks::bench {
namespace {

std::string message_body(const std::string& name, std::size_t message_bytes, std::uint64_t seq) {
  std::string text(kTimestampMarker);
  text += std::to_string(steady_now_ns());
  text += " seq:" + std::to_string(seq) + " ";
  if (text.size() < message_bytes) text.append(message_bytes - text.size(), 'x');
  // Names and text are plain ASCII without quotes or backslashes: no JSON escaping needed.
  return "{\"target\":\"agent:" + name + "\",\"message\":\"" + text + "\"}";
}

void record(RequestStats& stats, const HttpResult& result, int expected, std::int64_t latency_ns) {
  if (result.status == expected) {
    ++stats.ok;
    stats.latencies_ns.push_back(latency_ns);
    return;
  }
  ++stats.failures_by_status[result.status];
  if (stats.first_failure.empty()) {
    stats.first_failure = result.status == 0 ? result.error
                                             : "HTTP " + std::to_string(result.status) + " " + result.body.substr(0, 300);
  }
}

std::int64_t timed_send(HttpClient& client, const std::string& name, std::size_t message_bytes, std::uint64_t seq,
                        HttpResult* result) {
  const std::string body = message_body(name, message_bytes, seq);
  const std::int64_t start = steady_now_ns();
  *result = client.request("POST", "/v1/messages", body);
  return steady_now_ns() - start;
}

}  // namespace

void RequestStats::merge(RequestStats&& other) {
  ok += other.ok;
  for (const auto& [status, n] : other.failures_by_status) failures_by_status[status] += n;
  if (first_failure.empty()) first_failure = std::move(other.first_failure);
  latencies_ns.insert(latencies_ns.end(), other.latencies_ns.begin(), other.latencies_ns.end());
}

std::uint64_t RequestStats::failures() const {
  std::uint64_t n = 0;
  for (const auto& [status, count] : failures_by_status) n += count;
  return n;
}

RequestStats run_sender(const Endpoint& endpoint, const std::vector<std::string>& names, std::size_t message_bytes,
                        std::uint32_t seed, const std::atomic<bool>& stop, double sends_per_second) {
  RequestStats stats;
  HttpClient client(endpoint.host, endpoint.port, endpoint.token);
  client.set_timeout(std::chrono::milliseconds(10000));
  std::mt19937 rng(seed);
  std::uniform_int_distribution<std::size_t> pick(0, names.size() - 1);
  std::uint64_t seq = 0;
  const auto interval = sends_per_second > 0
                            ? std::chrono::nanoseconds(static_cast<std::int64_t>(1e9 / sends_per_second))
                            : std::chrono::nanoseconds(0);
  auto next = std::chrono::steady_clock::now();
  while (!stop.load(std::memory_order_relaxed)) {
    if (interval.count() > 0) {
      next += interval;  // a fixed schedule: a slow send is followed at once, never skipped
      std::this_thread::sleep_until(next);
    }
    HttpResult result;
    const std::int64_t latency = timed_send(client, names[pick(rng)], message_bytes, seq++, &result);
    record(stats, result, 201, latency);
    if (result.status == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));  // no busy spin
  }
  return stats;
}

RequestStats send_each(const Endpoint& endpoint, const std::vector<std::string>& names, std::size_t begin,
                       std::size_t end, std::size_t message_bytes) {
  RequestStats stats;
  HttpClient client(endpoint.host, endpoint.port, endpoint.token);
  client.set_timeout(std::chrono::milliseconds(10000));
  for (std::size_t i = begin; i < end && i < names.size(); ++i) {
    HttpResult result;
    const std::int64_t latency = timed_send(client, names[i], message_bytes, i, &result);
    record(stats, result, 201, latency);
  }
  return stats;
}

RequestStats run_reader(const Endpoint& endpoint, const std::vector<std::string>& names, double reads_per_second,
                        std::uint32_t seed, const std::atomic<bool>& stop, std::uint64_t history_end,
                        std::uint64_t* rows_read) {
  RequestStats stats;
  HttpClient client(endpoint.host, endpoint.port, endpoint.token);
  client.set_timeout(std::chrono::milliseconds(10000));
  std::mt19937 rng(seed);
  std::uniform_int_distribution<std::size_t> pick(0, names.size() - 1);
  std::vector<std::string> cursors(names.size(), "0");
  // A recipient's next 100 messages span about 100 x names.size() of the history (sends spread evenly); half as
  // much again leaves room for the unevenness.
  const std::uint64_t room = 150 * static_cast<std::uint64_t>(names.size());
  std::uniform_int_distribution<std::uint64_t> start(0, history_end > room ? history_end - room : 0);
  const auto interval = reads_per_second > 0
                            ? std::chrono::nanoseconds(static_cast<std::int64_t>(1e9 / reads_per_second))
                            : std::chrono::nanoseconds(0);
  auto next = std::chrono::steady_clock::now();
  while (!stop.load(std::memory_order_relaxed)) {
    if (interval.count() > 0) {
      next += interval;
      std::this_thread::sleep_until(next);
    }
    const std::size_t r = pick(rng);
    if (history_end > 0) cursors[r] = "m" + std::to_string(start(rng));
    const std::string target = "/v1/messages?agent_name=" + names[r] + "&after=" + cursors[r] + "&limit=100";
    const std::int64_t started = steady_now_ns();
    const HttpResult result = client.request("GET", target);
    record(stats, result, 200, steady_now_ns() - started);
    for (std::size_t at = result.body.find("\"message_id\""); at != std::string::npos;
         at = result.body.find("\"message_id\"", at + 1))
      ++*rows_read;
    // Continue from next_cursor; a string search keeps the reader's own CPU use small.
    const std::string key = "\"next_cursor\":\"";
    const std::size_t at = result.body.find(key);
    if (result.status == 200 && at != std::string::npos) {
      const std::size_t from = at + key.size();
      const std::size_t to = result.body.find('"', from);
      if (to != std::string::npos) cursors[r] = result.body.substr(from, to - from);
    }
    if (result.status == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return stats;
}

}  // namespace agentworks::bench
