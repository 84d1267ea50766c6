// Many concurrent SSE attachment streams served by one epoll thread. Each stream's body
// goes through agentworks::SseParser; message events carrying a benchmark timestamp
// record a send-to-delivery latency.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace agentworks::bench {

struct StreamTarget {
  std::string attachment_id;
  std::string agent_name;
};

class SseStreamPool {
 public:
  // `source_addresses` > 1: stream i connects from 127.0.0.(1 + i % source_addresses), so that tens of
  // thousands of streams do not exhaust one address's ephemeral ports.
  SseStreamPool(std::string host, std::uint16_t port, std::string token, std::size_t source_addresses = 1);
  ~SseStreamPool();
  SseStreamPool(const SseStreamPool&) = delete;
  SseStreamPool& operator=(const SseStreamPool&) = delete;

  // Connects and sends the stream request for every target (blocking connect, then
  // non-blocking reads). Returns false with *error when a connection cannot be made. A non-empty `after` (a
  // mailbox cursor "m<N>") resumes every stream there, as the bridge resumes from its stored cursor; empty starts
  // each at the beginning of its mailbox (everything not yet acknowledged is replayed first).
  bool open(const std::vector<StreamTarget>& targets, std::string* error, const std::string& after = "");
  void start();  // runs the epoll loop on its own thread
  void stop();   // stops the loop and closes every stream

  std::size_t ready_streams() const { return ready_.load(); }   // got "event: ready"
  std::size_t failed_streams() const { return failed_.load(); } // non-200, parse error or closed
  std::uint64_t delivered() const { return delivered_.load(); } // timestamped message events
  std::uint64_t events() const { return events_.load(); }       // all dispatched events

  // Delivery latencies (ns) of timestamped messages whose send started at or after
  // `since_ns` (steady clock); the caller sets it when the measured window opens.
  void set_measure_since(std::int64_t since_ns) { measure_since_.store(since_ns); }
  std::vector<std::int64_t> take_latencies();

  // Mailbox cursor ("m<N>") of the last message seen on stream `index` (order of open()).
  std::string last_cursor(std::size_t index) const;
  // The highest mailbox sequence seen on any stream (0: none).
  std::uint64_t highest_seq() const;

 private:
  struct Stream;
  void run();
  void on_readable(Stream& stream);
  bool feed_body(Stream& stream, std::string_view bytes);  // false: stream broken
  void close_stream(Stream& stream, bool failed);

  std::string host_;
  std::uint16_t port_;
  std::string token_;
  std::size_t source_addresses_;
  int epoll_fd_ = -1;
  std::vector<std::unique_ptr<Stream>> streams_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<std::size_t> ready_{0};
  std::atomic<std::size_t> failed_{0};
  std::atomic<std::uint64_t> delivered_{0};
  std::atomic<std::uint64_t> events_{0};
  std::atomic<std::int64_t> measure_since_{INT64_MAX};
  std::mutex mutex_;  // guards latencies_
  std::vector<std::int64_t> latencies_;
};

// The marker a benchmark message starts with, followed by the send's steady-clock ns.
inline constexpr std::string_view kTimestampMarker = "awbench-ts:";

std::int64_t steady_now_ns();

}  // namespace agentworks::bench
