// Group commit: every store-touching request runs inside one open transaction and parks its answer.
// A deferred flush (event_active) commits once per loop iteration, then sends the parked answers, starts
// streams and parks long polls, and finally hands the committed events to the Hub. A failed commit rolls
// back and answers every parked request with an error, `unavailable` (503, retryable) when the disk is full or
// failing, else `internal`: no receipt is ever sent for a message that is not durable (R-M1).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "http/response.hpp"

struct event;
struct event_base;

namespace agentworks::server {

class ConnectionTable;
class HttpConnection;
class Hub;
class Store;
struct StoreEvents;

class Batch {
 public:
  Batch(event_base* base, Store& store, Hub& hub, ConnectionTable& connections);
  ~Batch();
  Batch(const Batch&) = delete;
  Batch& operator=(const Batch&) = delete;

  void park(HttpConnection& conn, Response response);
  void schedule();  // make sure a flush runs in this loop iteration
  void flush();
  // Runs after each successful commit, after the hub (the function runner starts executions here).
  void set_after_commit(std::function<void(const StoreEvents&)> f) { after_commit_ = std::move(f); }
  // With replicas (replicas/replica_feed.hpp) committed messages reach the hub through the feed, in sequence
  // order with the other replicas' ones; the batch hands the hub the rest and then calls the feed.
  void set_message_feed(std::function<void()> f) { message_feed_ = std::move(f); }

 private:
  static void on_flush(int fd, short what, void* arg);
  struct Parked {
    std::uint64_t connection;  // looked up again: the client may have gone meanwhile
    Response response;
  };
  Store& store_;
  Hub& hub_;
  ConnectionTable& connections_;
  event* flush_ev_ = nullptr;
  bool scheduled_ = false;
  std::vector<Parked> parked_;
  std::function<void(const StoreEvents&)> after_commit_;
  std::function<void()> message_feed_;
};

}  // namespace agentworks::server
