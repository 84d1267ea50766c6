#include "http/batch.hpp"

#include <event2/event.h>
#include <spdlog/spdlog.h>

#include "http/connection.hpp"
#include "http/hub.hpp"
#include "http/reply.hpp"
#include "store/store.hpp"
#include "store/store_failure.hpp"

namespace agentworks::server {

Batch::Batch(event_base* base, Store& store, Hub& hub, ConnectionTable& connections)
    : store_(store), hub_(hub), connections_(connections) {
  flush_ev_ = event_new(base, -1, 0, &Batch::on_flush, this);
}

Batch::~Batch() {
  flush();
  event_free(flush_ev_);
}

void Batch::park(HttpConnection& conn, Response response) {
  parked_.push_back(Parked{conn.id(), std::move(response)});
  schedule();
}

void Batch::schedule() {
  if (scheduled_) return;
  scheduled_ = true;
  event_active(flush_ev_, EV_TIMEOUT, 0);
}

void Batch::on_flush(int, short, void* arg) { static_cast<Batch*>(arg)->flush(); }

void Batch::flush() {
  scheduled_ = false;
  bool ok = true;
  ErrorCode failure = ErrorCode::internal;
  try {
    store_.commit_batch();
  } catch (const std::exception& e) {
    failure = store_failure_code(e);
    spdlog::error("group commit failed, answering {} request(s) with {}: {}", parked_.size(), code_name(failure),
                  e.what());
    ok = false;
    try {
      store_.rollback_batch();
    } catch (const std::exception& e2) {
      spdlog::error("rollback after failed commit: {}", e2.what());
    }
  }
  std::vector<Parked> parked = std::move(parked_);
  parked_.clear();
  const StoreEvents events = ok ? store_.take_events() : StoreEvents{};
  for (auto& p : parked) {
    HttpConnection* conn = connections_.find(p.connection);
    if (conn == nullptr) continue;  // the client went away; its answer has nowhere to go
    try {
      if (!ok) {
        send_error(*conn, failure,
                   failure == ErrorCode::unavailable ? kStoreUnavailableMessage
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
  if (ok) {
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
}

}  // namespace agentworks::server
