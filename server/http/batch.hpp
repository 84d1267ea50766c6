// Group commit: every store-touching request runs inside one open transaction and parks its answer.
// A deferred flush (event_active) commits once per loop iteration. Once the commit is durable the batch sends
// the parked answers, starts streams and parks long polls, and finally hands the committed events to the Hub.
// On SQLite "durable" comes later: the commit only writes the WAL and a WalSyncer flushes it on its own thread,
// so the loop goes on taking requests (the next batch) during the flush; committed batches wait in order for the
// flush that covers them. A failed commit rolls back and answers every parked request with an error,
// `unavailable` (503, retryable) when the disk is full or failing, else `internal`; a failed flush answers
// `unavailable` too: no receipt is ever sent for a message that is not durable (R-M1).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "agentworks/error.hpp"
#include "http/flush_policy.hpp"
#include "request/response.hpp"
#include "store/store.hpp"

struct event;
struct event_base;

namespace agentworks::server {

class ConnectionTable;
class HttpConnection;
class Hub;
class WalSyncer;

class Batch {
 public:
  Batch(event_base* base, Store& store, Hub& hub, ConnectionTable& connections);
  ~Batch();
  Batch(const Batch&) = delete;
  Batch& operator=(const Batch&) = delete;

  // `batch` is what Store::in_request returned: the answer leaves only after that batch's commit.
  void park(HttpConnection& conn, Response response, std::uint64_t batch);
  void schedule();  // make sure a flush runs in this loop iteration
  void flush();
  // Commits what is open and waits for every committed batch to be durable and answered (shutdown).
  void drain();
  // SQLite: commits are made durable by `syncer` (kept alive by the caller), not by the commit itself.
  void set_syncer(WalSyncer* syncer);
  // Runs after each successful commit, after the hub (the function runner starts executions here).
  void set_after_commit(std::function<void(const StoreEvents&)> f) { after_commit_ = std::move(f); }
  // With replicas (replicas/replica_feed.hpp) committed messages reach the hub through the feed, in sequence
  // order with the other replicas' ones; the batch hands the hub the rest and then calls the feed.
  void set_message_feed(std::function<void()> f) { message_feed_ = std::move(f); }

 private:
  static void on_flush(int fd, short what, void* arg);
  static void on_synced(int fd, short what, void* arg);
  struct Parked {
    std::uint64_t connection;  // looked up again: the client may have gone meanwhile
    Response response;
    std::uint64_t batch;  // the store batch holding its work
  };
  // A committed batch waiting for the WAL flush with its ticket (0: no flush asked for it yet).
  struct Committed {
    std::uint64_t ticket = 0;
    std::int64_t last_seq = 0;
    std::vector<Parked> parked;
    StoreEvents events;
  };
  void release_synced();
  // Asks for a flush of the committed batches that have no ticket, unless one runs and the policy says wait.
  void request_flush();
  // Committed requests whose answers wait for a flush.
  std::size_t waiting_requests() const;
  void answer(std::vector<Parked>& parked, bool ok, ErrorCode failure, const char* message = nullptr);
  void publish(const StoreEvents& events);
  event_base* base_;
  Store& store_;
  Hub& hub_;
  ConnectionTable& connections_;
  event* flush_ev_ = nullptr;
  event* synced_ev_ = nullptr;
  WalSyncer* syncer_ = nullptr;
  std::uint64_t requested_ = 0;  // the last ticket asked of the syncer
  std::uint64_t finished_ = 0;   // the last ticket it reported
  FlushPolicy policy_;
  std::chrono::nanoseconds loop_cpu_{0};  // the loop thread's CPU time at the last commit
  bool scheduled_ = false;
  std::vector<Parked> parked_;
  std::deque<Committed> committed_;
  std::function<void(const StoreEvents&)> after_commit_;
  std::function<void()> message_feed_;
};

}  // namespace agentworks::server
