// How a replica of a PostgreSQL store learns what the others committed. One dedicated connection LISTENs for
// notices (replica_notice.hpp); a notice of new messages, a local commit, a listener reconnect and a safety
// poll all do the same thing: read the messages after the last sequence number handed to the hub, in order.
// Writers hold one lock (store/database/postgres_database.hpp), so sequence numbers become visible in order and
// that read misses nothing; a lost notice delays a delivery by at most the poll interval, never loses it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

struct event;
struct event_base;
struct pg_conn;

namespace agentworks::server {

class Hub;
class Store;

inline constexpr int kReplicaSafetyPollMs = 1000;
inline constexpr const char* kReplicaFeedApplicationName = "agentworks-replica-feed";

class ReplicaFeed {
 public:
  ReplicaFeed(event_base* base, Store& store, Hub& hub, std::string url);
  ~ReplicaFeed();
  ReplicaFeed(const ReplicaFeed&) = delete;
  ReplicaFeed& operator=(const ReplicaFeed&) = delete;

  // Hands the hub every message committed after the last one it was given (by any replica).
  void catch_up();
  // Calls another replica was asked to cancel (R-D3): the one that runs them kills them.
  void set_cancel_handler(std::function<void(const std::vector<std::string>&)> handler) {
    on_cancels_ = std::move(handler);
  }

 private:
  void listen();
  void drop_listener();
  void on_readable();
  void on_poll();
  static void readable_cb(int fd, short what, void* arg);
  static void poll_cb(int fd, short what, void* arg);

  event_base* base_;
  Store& store_;
  Hub& hub_;
  std::string url_;
  pg_conn* listener_ = nullptr;
  event* read_ev_ = nullptr;
  event* poll_ev_ = nullptr;
  std::int64_t high_water_ = 0;
  bool warned_ = false;  // one warning per outage, not one per poll
  std::function<void(const std::vector<std::string>&)> on_cancels_;
};

}  // namespace agentworks::server
