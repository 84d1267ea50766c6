#include "http/batch.hpp"

#include <event2/event.h>
#include <algorithm>
#include <iterator>
#include <time.h>
#include <spdlog/spdlog.h>

#include "http/connection.hpp"
#include "http/hub.hpp"
#include "http/reply.hpp"
#include "store/store_failure.hpp"
#include "store/wal_syncer.hpp"

namespace agentworks::server {

namespace {
// The commit is in the database file's cache but the disk did not confirm it: it may survive a power loss or not.
constexpr const char* kBatchLostMessage =
    "the database rolled this request's transaction back before its commit (connection lost or write failed): it "
    "is not stored; resend with the same submission_id";
constexpr const char* kFlushFailedMessage =
    "the server could not flush this write to disk (I/O error): it may or may not be stored; resend with the same "
    "submission_id, which stores it at most once";

std::chrono::nanoseconds thread_cpu_time() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
}
}  // namespace

Batch::Batch(event_base* base, Store& store, Hub& hub, ConnectionTable& connections)
    : base_(base), store_(store), hub_(hub), connections_(connections) {
  flush_ev_ = event_new(base, -1, 0, &Batch::on_flush, this);
}

Batch::~Batch() {
  drain();
  if (synced_ev_ != nullptr) event_free(synced_ev_);
  event_free(flush_ev_);
}

void Batch::set_syncer(WalSyncer* syncer) {
  syncer_ = syncer;
  loop_cpu_ = thread_cpu_time();
  synced_ev_ = event_new(base_, syncer->wake_fd(), EV_READ | EV_PERSIST, &Batch::on_synced, this);
  event_add(synced_ev_, nullptr);
}

void Batch::park(HttpConnection& conn, Response response, std::uint64_t batch) {
  // The loop's work per request is counted from here when nothing was waiting: what it did while idle (stream
  // heartbeats, timers) is not the cost of a request.
  if (syncer_ != nullptr && parked_.empty() && committed_.empty()) loop_cpu_ = thread_cpu_time();
  parked_.push_back(Parked{conn.id(), std::move(response), batch});
  schedule();
}

void Batch::schedule() {
  if (scheduled_) return;
  scheduled_ = true;
  event_active(flush_ev_, EV_TIMEOUT, 0);
}

void Batch::on_flush(int, short, void* arg) { static_cast<Batch*>(arg)->flush(); }

void Batch::on_synced(int, short, void* arg) { static_cast<Batch*>(arg)->release_synced(); }

void Batch::flush() {
  scheduled_ = false;
  Store::BatchCommit commit;
  try {
    commit = store_.commit_batch();
  } catch (const std::exception& e) {
    const ErrorCode failure = store_failure_code(e);
    spdlog::error("group commit failed, answering {} request(s) with {}: {}", parked_.size(), code_name(failure),
                  e.what());
    try {
      store_.rollback_batch();
    } catch (const std::exception& e2) {
      spdlog::error("rollback after failed commit: {}", e2.what());
    }
    std::vector<Parked> parked = std::move(parked_);
    parked_.clear();
    answer(parked, false, failure);
    return;
  }
  // Only the commit of a request's own batch releases its answer (R-M1): a batch the database rolled back under a
  // later request committed nothing of what was parked for it.
  const auto lost_begin = std::stable_partition(parked_.begin(), parked_.end(),
                                                [&](const Parked& p) { return p.batch == commit.batch; });
  if (lost_begin != parked_.end()) {
    std::vector<Parked> lost(std::make_move_iterator(lost_begin), std::make_move_iterator(parked_.end()));
    parked_.erase(lost_begin, parked_.end());
    spdlog::error("the database rolled back a batch before its commit: answering {} request(s) with unavailable",
                  lost.size());
    answer(lost, false, ErrorCode::unavailable, kBatchLostMessage);
  }
  const bool committed = commit.wrote;
  Committed batch;
  batch.parked = std::move(parked_);
  parked_.clear();
  batch.events = store_.take_events();
  if (syncer_ != nullptr && !batch.parked.empty()) {
    const auto cpu = thread_cpu_time();
    policy_.batch_committed(batch.parked.size(), cpu - loop_cpu_);
    loop_cpu_ = cpu;
  }
  if (syncer_ != nullptr && (committed || !committed_.empty())) {
    // Nothing of this batch leaves before the flush that covers it (or, with nothing committed, before the
    // answers of the batches ahead of it: they may have read what those wrote).
    batch.ticket = committed ? 0 : committed_.back().ticket;
    batch.last_seq = store_.committed_seq();
    committed_.push_back(std::move(batch));
    request_flush();
    return;
  }
  answer(batch.parked, true, ErrorCode::internal);
  publish(batch.events);
}

// On a slow disk one flush at a time: a batch committed while one runs gets its ticket when that one has returned
// and its answers are out (asking at once there split closed-loop writers into two groups that took turns, two
// flushes per round trip). On a fast disk the next flush is asked at once, so the disk works while the loop does.
// FlushPolicy measures which regime this is.
void Batch::request_flush() {
  if (committed_.empty() || committed_.back().ticket != 0) return;  // every committed batch has its flush
  if (requested_ > finished_ && !policy_.ask_at_once(waiting_requests())) return;
  requested_ = syncer_->request();
  for (auto it = committed_.rbegin(); it != committed_.rend() && it->ticket == 0; ++it) it->ticket = requested_;
}

std::size_t Batch::waiting_requests() const {
  std::size_t n = 0;
  for (const auto& batch : committed_) n += batch.parked.size();
  return n;
}

void Batch::release_synced() {
  for (const auto& outcome : syncer_->collect()) {
    finished_ = outcome.through;
    policy_.flush_finished(outcome.took);
    if (!outcome.ok) {
      spdlog::error("flushing the WAL failed ({}): answering the requests of its commits with unavailable and "
                    "ending every stream, so that clients read again from their cursors",
                    outcome.error);
    }
    bool failed = false;
    while (!committed_.empty() && committed_.front().ticket <= outcome.through) {
      Committed batch = std::move(committed_.front());
      committed_.pop_front();
      if (outcome.ok) {
        store_.set_durable_seq(batch.last_seq);
        answer(batch.parked, true, ErrorCode::internal);
        publish(batch.events);
      } else {
        failed = true;
        answer(batch.parked, false, ErrorCode::unavailable, kFlushFailedMessage);
        if (!batch.events.calls_started.empty())
          spdlog::error("{} function call(s) committed as running were not started; the next start interrupts them",
                        batch.events.calls_started.size());
      }
    }
    // Their events are not delivered: a stream would skip those messages, so every stream starts over.
    if (failed) hub_.shutdown();
  }
  request_flush();
}

void Batch::drain() {
  flush();
  if (syncer_ == nullptr) return;
  while (!committed_.empty()) {
    request_flush();
    syncer_->wait_for(requested_);
    release_synced();
  }
}

void Batch::answer(std::vector<Parked>& parked, bool ok, ErrorCode failure, const char* message) {
  for (auto& p : parked) {
    HttpConnection* conn = connections_.find(p.connection);
    if (conn == nullptr) continue;  // the client went away; its answer has nowhere to go
    try {
      if (!ok) {
        send_error(*conn, failure,
                   message != nullptr                  ? message
                   : failure == ErrorCode::unavailable ? kStoreUnavailableMessage
                                                       : "the server could not store this request; retry");
      } else if (p.response.stream) {
        hub_.start_stream(*conn, *p.response.stream);
      } else if (p.response.call_wait) {
        hub_.park_call(*conn, *p.response.call_wait);
      } else if (p.response.long_poll) {
        hub_.park(*conn, *p.response.long_poll);
      } else {
        send_json(*conn, p.response.status, p.response.body);
      }
    } catch (const std::exception& e) {
      spdlog::error("answering a parked request failed: {}", e.what());
    }
  }
}

void Batch::publish(const StoreEvents& events) {
  try {
    if (message_feed_) {
      StoreEvents rest = events;
      rest.messages.clear();
      hub_.on_events(rest);
      message_feed_();
    } else {
      hub_.on_events(events);
    }
  } catch (const std::exception& e) {
    spdlog::error("waking streams and polls failed: {}", e.what());
  }
  if (after_commit_) {
    try {
      after_commit_(events);
    } catch (const std::exception& e) {
      spdlog::error("after-commit work failed: {}", e.what());
    }
  }
}

}  // namespace agentworks::server
