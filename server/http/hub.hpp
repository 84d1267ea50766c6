// Parked requests woken by events: SSE attachment streams and long-poll reads.
// No thread per connection: each parked request is a few bytes of state plus a connection close callback.
// After every group commit the batch hands the committed StoreEvents to on_events(), which fences/ends
// streams, closes revoked connections' streams and polls, pushes new messages and wakes waiters.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "request/presence.hpp"
#include "request/response.hpp"
#include "store/store.hpp"

struct event;
struct event_base;

namespace agentworks::server {

class HttpConnection;

// Open SSE streams per attachment; a new stream closes the oldest over this (the reconnecting bridge wins).
inline constexpr int kMaxStreamsPerAttachment = 4;

class Hub final : public Presence {
 public:
  Hub(event_base* base, Store& store, const Limits& limits);
  ~Hub();
  Hub(const Hub&) = delete;
  Hub& operator=(const Hub&) = delete;

  int stream_count(const std::string& attachment_id) const override;
  bool agent_connected(const std::string& agent_id) override;

  // Called after the commit that covered the request.
  void start_stream(HttpConnection& conn, const StreamStart& s);
  void park(HttpConnection& conn, const LongPoll& lp);
  void park_call(HttpConnection& conn, const CallWait& wait);
  void on_events(const StoreEvents& ev);
  // Ends every stream and answers every long poll (SIGTERM/SIGINT).
  void shutdown();

  struct Parked;  // one stream or waiter; public for the C callbacks

 private:
  void finish(std::uint64_t id, bool end_reply);
  void forget(std::uint64_t id);
  void wake(std::uint64_t id, bool timed_out);
  void heartbeat();
  void close_oldest_streams(const std::string& attachment_id, int keep);
  static void on_timer(int fd, short what, void* arg);
  static void on_heartbeat(int fd, short what, void* arg);

  event_base* base_;
  Store& store_;
  Limits limits_;
  event* heartbeat_ = nullptr;
  static constexpr int kHeartbeatTickMs = 100;
  std::uint64_t heartbeat_tick_ = 0;
  std::uint64_t next_id_ = 1;
  std::unordered_map<std::uint64_t, std::unique_ptr<Parked>> parked_;
  std::unordered_map<std::string, std::vector<std::uint64_t>> by_key_;  // agent_id / conversation_id -> ids
  std::unordered_map<std::string, int> streams_per_attachment_;
};

}  // namespace agentworks::server
