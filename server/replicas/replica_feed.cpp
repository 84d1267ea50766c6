#include "replicas/replica_feed.hpp"

#include <event2/event.h>
#include <libpq-fe.h>
#include <spdlog/spdlog.h>

#include "http/hub.hpp"
#include "store/replica_notice.hpp"
#include "store/store.hpp"

namespace agentworks::server {
namespace {
constexpr int kCatchUpPage = 500;
}  // namespace

ReplicaFeed::ReplicaFeed(event_base* base, Store& store, Hub& hub, std::string url)
    : base_(base), store_(store), hub_(hub), url_(std::move(url)) {
  high_water_ = store_.last_message_seq();
  poll_ev_ = event_new(base_, -1, EV_PERSIST, &ReplicaFeed::poll_cb, this);
  const timeval tv{kReplicaSafetyPollMs / 1000, (kReplicaSafetyPollMs % 1000) * 1000};
  event_add(poll_ev_, &tv);
  listen();
}

ReplicaFeed::~ReplicaFeed() {
  drop_listener();
  if (poll_ev_ != nullptr) event_free(poll_ev_);
}

void ReplicaFeed::listen() {
  // Named, so an operator (and the tests) can find the replicas' listening connections in pg_stat_activity.
  const char* keys[] = {"dbname", "application_name", nullptr};
  const char* values[] = {url_.c_str(), kReplicaFeedApplicationName, nullptr};
  listener_ = PQconnectdbParams(keys, values, 1);
  if (PQstatus(listener_) == CONNECTION_OK) {
    PGresult* r = PQexec(listener_, (std::string("LISTEN ") + kNoticeChannel).c_str());
    const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    PQclear(r);
    if (ok && PQsetnonblocking(listener_, 1) == 0) {
      read_ev_ = event_new(base_, PQsocket(listener_), EV_READ | EV_PERSIST, &ReplicaFeed::readable_cb, this);
      event_add(read_ev_, nullptr);
      if (warned_) spdlog::info("replica feed: listening for other replicas' commits again");
      warned_ = false;
      catch_up();  // whatever was committed while no one listened
      return;
    }
  }
  if (!warned_)
    spdlog::warn("replica feed: cannot listen for other replicas' commits ({}); reading new messages every {} ms "
                 "until it can",
                 PQerrorMessage(listener_), kReplicaSafetyPollMs);
  warned_ = true;
  drop_listener();
}

void ReplicaFeed::drop_listener() {
  if (read_ev_ != nullptr) {
    event_free(read_ev_);
    read_ev_ = nullptr;
  }
  if (listener_ != nullptr) {
    PQfinish(listener_);
    listener_ = nullptr;
  }
}

void ReplicaFeed::readable_cb(int, short, void* arg) { static_cast<ReplicaFeed*>(arg)->on_readable(); }
void ReplicaFeed::poll_cb(int, short, void* arg) { static_cast<ReplicaFeed*>(arg)->on_poll(); }

void ReplicaFeed::on_readable() {
  if (PQconsumeInput(listener_) == 0 || PQstatus(listener_) != CONNECTION_OK) {
    spdlog::warn("replica feed: the listening connection was lost; reconnecting");
    warned_ = true;
    drop_listener();
    listen();
    return;
  }
  bool messages = false;
  StoreEvents others;
  while (PGnotify* n = PQnotifies(listener_)) {
    const auto notice = parse_notice(n->extra);
    PQfreemem(n);
    if (!notice || notice->replica == store_.replica_id()) continue;
    messages = messages || notice->messages;
    for (const auto& f : notice->fenced) others.fenced.push_back(f);
    for (const auto& r : notice->revoked_connections) others.revoked_connections.push_back(r);
    for (const auto& c : notice->calls_changed) others.calls_changed.push_back(c);
    for (const auto& c : notice->calls_cancelled) others.calls_cancelled.push_back(c);
  }
  if (!others.empty()) {
    try {
      hub_.on_events(others);
    } catch (const std::exception& e) {
      spdlog::error("replica feed: waking streams and polls failed: {}", e.what());
    }
  }
  if (!others.calls_cancelled.empty() && on_cancels_) on_cancels_(others.calls_cancelled);
  if (messages) catch_up();
}

void ReplicaFeed::on_poll() {
  if (listener_ == nullptr) listen();
  catch_up();
}

void ReplicaFeed::catch_up() {
  // Inside an open batch a read would see its uncommitted rows: the flush that commits it calls again.
  if (store_.in_batch()) return;
  try {
    for (;;) {
      StoreEvents ev;
      ev.messages = store_.messages_after(high_water_, kCatchUpPage);
      if (ev.messages.empty()) return;
      high_water_ = ev.messages.back().seq;
      const bool more = ev.messages.size() == static_cast<std::size_t>(kCatchUpPage);
      hub_.on_events(ev);
      if (!more) return;
    }
  } catch (const std::exception& e) {
    // The store is unreachable: the next poll tries again from the same sequence number.
    if (!warned_) spdlog::warn("replica feed: cannot read new messages: {}", e.what());
    warned_ = true;
  }
}

}  // namespace agentworks::server
