// The benchmark's traffic: sender threads (POST /v1/messages to random receivers over one
// keep-alive connection each) and a paced reader (GET /v1/messages with `after`).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace agentworks::bench {

struct Endpoint {
  std::string host = "127.0.0.1";
  std::uint16_t port = 0;
  std::string token;
};

struct RequestStats {
  std::uint64_t ok = 0;
  std::map<int, std::uint64_t> failures_by_status;  // 0 = transport failure
  std::string first_failure;
  std::vector<std::int64_t> latencies_ns;  // successful requests only

  void merge(RequestStats&& other);
  std::uint64_t failures() const;
};

// Sends messages to random names until `stop` is set, at most `sends_per_second` (0 = as fast as possible).
// Each message starts with kTimestampMarker and the send time, padded to `message_bytes`.
RequestStats run_sender(const Endpoint& endpoint, const std::vector<std::string>& names, std::size_t message_bytes,
                        std::uint32_t seed, const std::atomic<bool>& stop, double sends_per_second = 0);

// Sends exactly one message to each name in names[begin, end), in order.
RequestStats send_each(const Endpoint& endpoint, const std::vector<std::string>& names, std::size_t begin,
                       std::size_t end, std::size_t message_bytes);

// Reads random named mailboxes, at most `reads_per_second` (0 = as fast as possible), until `stop` is set. With
// `history_end` 0 each read continues from the cursor where that mailbox's previous read ended (the first from the
// start); otherwise each starts at a random point of the stored history below sequence `history_end`, far enough
// below it that a full page of 100 is there, so that every read returns the same rows' worth of work whatever the
// history. *rows_read counts the messages the reads returned.
RequestStats run_reader(const Endpoint& endpoint, const std::vector<std::string>& names, double reads_per_second,
                        std::uint32_t seed, const std::atomic<bool>& stop, std::uint64_t history_end,
                        std::uint64_t* rows_read);

}  // namespace agentworks::bench
