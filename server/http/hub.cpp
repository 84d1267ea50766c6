#include "http/hub.hpp"

#include <event2/event.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "agentworks/error.hpp"
#include "api/json_out.hpp"
#include "api/page.hpp"
#include "http/connection.hpp"
#include "http/reply.hpp"

namespace agentworks::server {

struct Hub::Parked {
  Hub* hub = nullptr;
  std::uint64_t id = 0;
  bool stream = false;
  HttpConnection* conn = nullptr;  // valid while parked: its close callback forgets us first
  std::string key;  // agent_id (streams, mailbox polls) or conversation_id (inbox polls)
  std::string connection_id;
  // stream
  std::string attachment_id;
  std::int64_t last_seq = 0;
  // long poll
  LongPoll poll;
  std::optional<CallWait> call_wait;
  event* timer = nullptr;
};

namespace {

std::string cursor_text(std::int64_t seq) { return seq > 0 ? "m" + std::to_string(seq) : "0"; }

std::string sse_event(const char* name, const std::string& data, const std::string& id = {}) {
  std::string out;
  if (!id.empty()) out += "id: " + id + "\n";
  out += "event: ";
  out += name;
  out += "\ndata: " + data + "\n\n";
  return out;
}

std::string fenced_data(const std::string& attachment_id, const std::string& reason) {
  return dump(nlohmann::json{{"attachment_id", attachment_id}, {"reason", reason}});
}

std::string reason_for_state(AttachmentState state) {
  if (state == AttachmentState::fenced) return "superseded";
  if (state == AttachmentState::revoked) return "revoked";
  return "detached";
}

}  // namespace

Hub::Hub(event_base* base, Store& store, const Limits& limits) : base_(base), store_(store), limits_(limits) {
  heartbeat_ = event_new(base_, -1, EV_PERSIST, &Hub::on_heartbeat, this);
  const timeval tv{0, kHeartbeatTickMs * 1000};
  event_add(heartbeat_, &tv);
}

Hub::~Hub() {
  shutdown();
  if (heartbeat_ != nullptr) event_free(heartbeat_);
}

int Hub::stream_count(const std::string& attachment_id) const {
  const auto it = streams_per_attachment_.find(attachment_id);
  return it == streams_per_attachment_.end() ? 0 : it->second;
}

bool Hub::agent_connected(const std::string& agent_id) {
  const auto current = store_.current_attachment_id(agent_id);
  return current && stream_count(*current) > 0;
}

void Hub::forget(std::uint64_t id) {
  auto it = parked_.find(id);
  if (it == parked_.end()) return;
  Parked* p = it->second.get();
  if (p->timer != nullptr) event_free(p->timer);
  auto& ids = by_key_[p->key];
  ids.erase(std::remove(ids.begin(), ids.end(), id), ids.end());
  if (ids.empty()) by_key_.erase(p->key);
  if (p->stream && --streams_per_attachment_[p->attachment_id] <= 0) streams_per_attachment_.erase(p->attachment_id);
  parked_.erase(it);
}

// Ends a stream (terminating chunk) or drops a poll's bookkeeping; the caller already replied to a poll.
void Hub::finish(std::uint64_t id, bool end_reply) {
  auto it = parked_.find(id);
  if (it == parked_.end()) return;
  Parked* p = it->second.get();
  p->conn->set_close_callback(nullptr);
  if (end_reply) p->conn->end_stream();
  forget(id);
}

// Closes the oldest streams of an attachment so that at most `keep` stay open.
void Hub::close_oldest_streams(const std::string& attachment_id, int keep) {
  std::vector<std::uint64_t> ids;  // parked ids grow with time: smallest is oldest
  for (const auto& [id, p] : parked_)
    if (p->stream && p->attachment_id == attachment_id) ids.push_back(id);
  std::sort(ids.begin(), ids.end());
  for (std::size_t i = 0; i + static_cast<std::size_t>(keep) < ids.size(); ++i) finish(ids[i], true);
}

void Hub::start_stream(HttpConnection& conn, const StreamStart& s) {
  if (conn.peer_closed()) {
    conn.abort();
    return;
  }
  const auto att = store_.attachment_by_id(s.attachment_id);
  conn.start_event_stream();
  std::string out = "retry: 1000\n\n";
  if (!att || att->state != AttachmentState::current) {
    out += sse_event("fenced", fenced_data(s.attachment_id, att ? reason_for_state(att->state) : "detached"));
    conn.send_chunk(out, true);
    conn.end_stream();
    return;
  }
  out += sse_event("ready", dump(nlohmann::json{{"attachment_id", att->attachment_id},
                                                {"agent_name", att->agent_name},
                                                {"cursor", cursor_text(s.after)}}));
  ReadTarget target{true, att->agent_id, s.after};
  for (;;) {
    const auto batch = store_.fetch(target, 100, store_.durable_seq());
    for (const auto& m : batch) {
      out += sse_event("message", message_text(m, true), "m" + std::to_string(m.seq));
      target.after = m.seq;
    }
    if (batch.size() < 100) break;
  }
  if (!conn.send_chunk(out, true)) return;
  close_oldest_streams(att->attachment_id, kMaxStreamsPerAttachment - 1);

  auto p = std::make_unique<Parked>();
  p->hub = this;
  p->id = next_id_++;
  p->stream = true;
  p->conn = &conn;
  p->key = att->agent_id;
  p->connection_id = s.connection_id;
  p->attachment_id = att->attachment_id;
  p->last_seq = target.after;
  // A stream only writes: a client that stops reading is dropped (write timeout, unsent-output cap).
  conn.set_write_timeout(120);
  conn.set_close_callback([this, id = p->id] { forget(id); });
  by_key_[p->key].push_back(p->id);
  ++streams_per_attachment_[p->attachment_id];
  parked_.emplace(p->id, std::move(p));
}

void Hub::park(HttpConnection& conn, const LongPoll& lp) {
  if (conn.peer_closed()) {
    conn.abort();
    return;
  }
  auto p = std::make_unique<Parked>();
  p->hub = this;
  p->id = next_id_++;
  p->conn = &conn;
  p->key = lp.target.key;
  p->connection_id = lp.connection_id;
  p->poll = lp;
  p->timer = evtimer_new(base_, &Hub::on_timer, p.get());
  const timeval tv{lp.wait_seconds, 0};
  evtimer_add(p->timer, &tv);
  conn.set_close_callback([this, id = p->id] { forget(id); });
  by_key_[p->key].push_back(p->id);
  parked_.emplace(p->id, std::move(p));
}

void Hub::park_call(HttpConnection& conn, const CallWait& wait) {
  if (conn.peer_closed()) {
    conn.abort();
    return;
  }
  // The call may have changed between the handler and the commit that released this answer.
  if (auto body = wait.render(false)) {
    send_json(conn, wait.status, *body);
    return;
  }
  auto p = std::make_unique<Parked>();
  p->hub = this;
  p->id = next_id_++;
  p->conn = &conn;
  p->key = "call:" + wait.call_id;
  p->connection_id = wait.connection_id;
  p->call_wait = wait;
  p->timer = evtimer_new(base_, &Hub::on_timer, p.get());
  const timeval tv{wait.wait_seconds, 0};
  evtimer_add(p->timer, &tv);
  conn.set_close_callback([this, id = p->id] { forget(id); });
  by_key_[p->key].push_back(p->id);
  parked_.emplace(p->id, std::move(p));
}

void Hub::on_timer(int, short, void* arg) {
  auto* p = static_cast<Parked*>(arg);
  p->hub->wake(p->id, true);
}

// Re-runs a parked read; answers it when there is something (or when its time is up).
void Hub::wake(std::uint64_t id, bool timed_out) {
  auto it = parked_.find(id);
  if (it == parked_.end() || it->second->stream) return;
  Parked* p = it->second.get();
  if (p->call_wait) {
    std::optional<std::string> body;
    try {
      body = p->call_wait->render(timed_out);
    } catch (const std::exception& e) {
      spdlog::error("a parked call read failed: {}", e.what());
      p->conn->set_close_callback(nullptr);
      send_error(*p->conn, ErrorCode::internal, "the server could not read the call; retry");
      forget(id);
      return;
    }
    if (!body) return;
    p->conn->set_close_callback(nullptr);
    send_json(*p->conn, p->call_wait->status, *body);
    forget(id);
    return;
  }
  std::vector<Message> messages;
  try {
    messages = store_.fetch(p->poll.target, p->poll.limit, store_.durable_seq());
  } catch (const std::exception& e) {
    spdlog::error("long poll read failed: {}", e.what());
    p->conn->set_close_callback(nullptr);
    send_error(*p->conn, ErrorCode::internal, "the server could not read messages; retry");
    forget(id);
    return;
  }
  if (messages.empty() && !timed_out) return;
  p->conn->set_close_callback(nullptr);
  send_json(*p->conn, 200, page_text(messages, p->poll.target.mailbox, p->poll.after));
  forget(id);
}

void Hub::on_events(const StoreEvents& ev) {
  // Fences and revocations first: a fenced attachment gets no further deliveries (invariant 5).
  for (const auto& [attachment_id, reason] : ev.fenced) {
    std::vector<std::uint64_t> ids;
    for (const auto& [id, p] : parked_)
      if (p->stream && p->attachment_id == attachment_id) ids.push_back(id);
    for (const auto id : ids) {
      parked_.at(id)->conn->send_chunk(sse_event("fenced", fenced_data(attachment_id, reason)));
      finish(id, true);
    }
  }
  if (!ev.revoked_connections.empty()) {
    const std::set<std::string> revoked(ev.revoked_connections.begin(), ev.revoked_connections.end());
    std::vector<std::uint64_t> ids;
    for (const auto& [id, p] : parked_)
      if (revoked.count(p->connection_id) != 0) ids.push_back(id);
    for (const auto id : ids) {
      Parked* p = parked_.at(id).get();
      if (p->stream) {
        finish(id, true);
      } else {
        p->conn->set_close_callback(nullptr);
        send_error(*p->conn, ErrorCode::unauthenticated, "this connection was revoked; sign in again");
        forget(id);
      }
    }
  }
  std::set<std::uint64_t> to_wake;
  for (const auto& m : ev.messages) {
    if (m.recipient_agent_id) {
      auto it = by_key_.find(*m.recipient_agent_id);
      if (it != by_key_.end()) {
        std::string frame;
        for (const auto id : it->second) {
          Parked* p = parked_.at(id).get();
          if (!p->stream) {
            if (p->poll.target.mailbox) to_wake.insert(id);
            continue;
          }
          if (p->last_seq >= m.seq) continue;
          if (frame.empty()) frame = sse_event("message", message_text(m, true), "m" + std::to_string(m.seq));
          if (p->conn->send_chunk(frame)) p->last_seq = m.seq;
        }
      }
    }
    if (auto it = by_key_.find(m.conversation_id); it != by_key_.end())
      for (const auto id : it->second) to_wake.insert(id);
  }
  for (const auto& call_id : ev.calls_changed)
    if (auto it = by_key_.find("call:" + call_id); it != by_key_.end())
      for (const auto id : it->second) to_wake.insert(id);
  for (const auto id : to_wake) wake(id, false);
}

// Every stream still hears one heartbeat per interval, but each tick writes only one slice of them (the streams
// whose id falls in this tick's slot): 10,000 streams would otherwise be written in one loop iteration, and every
// send waiting behind it would wait that long.
void Hub::heartbeat() {
  const std::uint64_t slots =
      static_cast<std::uint64_t>(std::max(1, limits_.heartbeat_seconds)) * (1000 / kHeartbeatTickMs);
  const std::uint64_t slot = heartbeat_tick_++ % slots;
  for (const auto& [id, p] : parked_)
    if (p->stream && id % slots == slot) p->conn->send_chunk(": hb\n\n");
}

void Hub::on_heartbeat(int, short, void* arg) { static_cast<Hub*>(arg)->heartbeat(); }

void Hub::shutdown() {
  std::vector<std::uint64_t> ids;
  for (const auto& [id, p] : parked_) ids.push_back(id);
  for (const auto id : ids) {
    auto it = parked_.find(id);
    if (it == parked_.end()) continue;
    if (it->second->stream) {
      finish(id, true);
    } else {
      wake(id, true);
    }
  }
}

}  // namespace agentworks::server
