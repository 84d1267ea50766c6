#include "http/connection.hpp"

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <openssl/ssl.h>
#include <event2/event.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>

#include "agentworks/validation.hpp"
#include "clock.hpp"
#include "request/response.hpp"
#include "http/tls_context.hpp"

namespace agentworks::server {
namespace {

constexpr int kLingerSeconds = 2;   // after our last byte: wait this long for the client's EOF
constexpr int kClosingSeconds = 10; // the whole close (flush + linger) never takes longer

const char* reason_phrase(int status) {
  switch (status) {
    case 200: return "OK";
    case 201: return "Created";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 413: return "Payload Too Large";
    case 429: return "Too Many Requests";
    case 503: return "Service Unavailable";
    default: return status >= 500 ? "Internal Server Error" : "Error";
  }
}

// "Date: Thu, 03 Dec 2026 07:40:00 GMT\r\n" (RFC 9110 IMF-fixdate): an origin server with a clock sends it, and
// clients compare it with their own clock (`agentworks doctor`'s clock-skew check).
std::string http_date_header() {
  const auto now = static_cast<std::time_t>(server::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[64];
  const std::size_t n = std::strftime(text, sizeof text, "Date: %a, %d %b %Y %H:%M:%S GMT\r\n", &utc);
  return std::string(text, n);
}

}  // namespace

HttpConnection::HttpConnection(ConnectionTable& table, Id id, bufferevent* bev, bool refuse)
    : table_(table), id_(id), bev_(bev) {
  timer_ = evtimer_new(table_.base(), &HttpConnection::on_timer, this);
  bufferevent_setcb(bev_, &HttpConnection::on_read, &HttpConnection::on_write, &HttpConnection::on_event, this);
  set_write_timeout(table_.settings().write_timeout_seconds);
  bufferevent_enable(bev_, EV_READ | EV_WRITE);
  if (refuse) {
    fail(ErrorCode::busy, "the server has too many open connections; retry later");
    return;
  }
  arm_timer(table_.settings().request_deadline_seconds);
  deadline_armed_ = true;
}

HttpConnection::~HttpConnection() {
  if (timer_ != nullptr) event_free(timer_);
  bufferevent_free(bev_);
}

void HttpConnection::set_write_timeout(int seconds) {
  const timeval tv{seconds, 0};
  bufferevent_set_timeouts(bev_, nullptr, &tv);
}

void HttpConnection::arm_timer(int seconds) {
  const timeval tv{seconds, 0};
  evtimer_add(timer_, &tv);
}

void HttpConnection::on_read(bufferevent*, void* arg) { static_cast<HttpConnection*>(arg)->process_input(); }

void HttpConnection::process_input() {
  evbuffer* in = bufferevent_get_input(bev_);
  switch (state_) {
    case State::head: read_head(); break;
    case State::body: read_body(); break;
    case State::handling:
      // Pipelined bytes wait for the answer; a client that floods meanwhile is dropped.
      if (evbuffer_get_length(in) > kMaxHeadBytes + kMaxRequestBodyBytes) abort();
      break;
    case State::streaming:
    case State::closing:
    case State::dead: evbuffer_drain(in, evbuffer_get_length(in)); break;
  }
}

void HttpConnection::read_head() {
  evbuffer* in = bufferevent_get_input(bev_);
  // Empty lines before a request line are allowed (RFC 9112 2.2).
  for (;;) {
    unsigned char* first = evbuffer_pullup(in, 1);
    if (first == nullptr || (*first != '\r' && *first != '\n')) break;
    evbuffer_drain(in, 1);
  }
  const std::size_t len = evbuffer_get_length(in);
  if (len == 0) return;
  if (!deadline_armed_) {  // the first byte of a request on a kept-alive connection
    arm_timer(table_.settings().request_deadline_seconds);
    deadline_armed_ = true;
  }
  const std::size_t look = std::min(len, kMaxHeadBytes);
  const auto* bytes = reinterpret_cast<const char*>(evbuffer_pullup(in, static_cast<ev_ssize_t>(look)));
  const auto end = find_head_end(std::string_view(bytes, look));
  if (!end) {
    if (len >= kMaxHeadBytes)
      fail(ErrorCode::bad_request, "the request head is over 64 KiB; send fewer or shorter headers");
    return;
  }
  auto parsed = parse_request_head(std::string_view(bytes, *end));
  evbuffer_drain(in, *end);
  if (auto* error = std::get_if<HeadError>(&parsed)) {
    fail(error->code, error->message);
    return;
  }
  head_ = std::move(std::get<RequestHead>(parsed));
  state_ = State::body;
  if (head_.expect_continue && head_.content_length > evbuffer_get_length(in)) {
    static constexpr char kContinue[] = "HTTP/1.1 100 Continue\r\n\r\n";
    send_bytes(std::string_view(kContinue, sizeof kContinue - 1));
  }
  read_body();
}

void HttpConnection::read_body() {
  evbuffer* in = bufferevent_get_input(bev_);
  if (evbuffer_get_length(in) < head_.content_length) return;
  body_.assign(head_.content_length, '\0');
  if (head_.content_length > 0) evbuffer_remove(in, body_.data(), head_.content_length);
  evtimer_del(timer_);
  deadline_armed_ = false;
  state_ = State::handling;
  table_.handle(*this);
}

void HttpConnection::on_write(bufferevent*, void* arg) {
  auto* self = static_cast<HttpConnection*>(arg);
  if (self->state_ != State::closing || self->shut_) return;
  // Everything is sent: shut our side and linger for the client's EOF, so unread request bytes cannot turn our
  // answer into a reset.
  self->shut_ = true;
  // Over TLS the end is said first (close_notify), so the client can tell it from a cut connection.
  if (SSL* ssl = bufferevent_openssl_get_ssl(self->bev_)) SSL_shutdown(ssl);
  ::shutdown(bufferevent_getfd(self->bev_), SHUT_WR);
  self->arm_timer(kLingerSeconds);
}

void HttpConnection::on_event(bufferevent*, short what, void* arg) {
  auto* self = static_cast<HttpConnection*>(arg);
  if (what == BEV_EVENT_CONNECTED) return;  // a TLS handshake completed: the request comes next
  if ((what & BEV_EVENT_EOF) != 0 && self->state_ == State::handling && !self->on_close_) {
    // Half-closed after sending its request: the answer still goes out, then the connection closes.
    self->peer_closed_ = true;
    bufferevent_disable(self->bev_, EV_READ);
    return;
  }
  self->abort();
}

void HttpConnection::on_timer(int, short, void* arg) {
  auto* self = static_cast<HttpConnection*>(arg);
  switch (self->state_) {
    case State::head:
      if (!self->deadline_armed_) {
        self->abort();  // idle kept-alive connection: nothing of a request arrived
        return;
      }
      [[fallthrough]];
    case State::body:
      self->fail(ErrorCode::bad_request, "the request did not arrive completely within " +
                                             std::to_string(self->table_.settings().request_deadline_seconds) +
                                             " seconds; send the whole request at once");
      return;
    default: self->abort(); return;  // closing took too long
  }
}

void HttpConnection::write_answer(int status, const std::string& body, bool keep_alive) {
  char line[64];
  std::snprintf(line, sizeof line, "HTTP/1.%d %d %s\r\n", head_.minor_version, status, reason_phrase(status));
  std::string out = line;
  out += "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  out += http_date_header();
  if (!keep_alive) {
    out += "Connection: close\r\n";
  } else if (head_.minor_version == 0) {
    out += "Connection: keep-alive\r\n";
  }
  out += "\r\n";
  if (head_.method != "HEAD") out += body;
  send_bytes(out);
}

// With nothing queued, a plain-TCP answer is written to the socket at once; the bufferevent gets only what the
// socket did not take. The client has its answer before the loop goes on to the next one (its next request can
// be on the way meanwhile), and a write that goes out whole costs no write event: no epoll_ctl pair, no extra
// loop turn. Over TLS, and behind anything already queued, bytes go through the bufferevent in order.
void HttpConnection::send_bytes(std::string_view bytes) {
  evbuffer* output = bufferevent_get_output(bev_);
  if (!bytes.empty() && evbuffer_get_length(output) == 0 && bufferevent_openssl_get_ssl(bev_) == nullptr) {
    const ssize_t n = ::send(bufferevent_getfd(bev_), bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    // An error other than a full socket is left to the bufferevent: its own write meets it and reports it.
    if (n > 0) bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  if (!bytes.empty()) bufferevent_write(bev_, bytes.data(), bytes.size());
}

void HttpConnection::reply(int status, const std::string& json_body) {
  if (state_ != State::handling) return;
  const bool keep = head_.keep_alive && !peer_closed_ && !table_.stopping();
  write_answer(status, json_body, keep);
  after_reply(keep);
}

void HttpConnection::reply_error(ErrorCode code, const std::string& message) {
  reply(http_status(code), error_body(code, message));
}

void HttpConnection::after_reply(bool keep_alive) {
  if (!keep_alive) {
    start_closing();
    return;
  }
  head_ = RequestHead{};
  body_.clear();
  state_ = State::head;
  deadline_armed_ = false;
  arm_timer(table_.settings().idle_seconds);
  // A pipelined next request is already buffered: read it on the next loop turn, not inside our caller.
  if (evbuffer_get_length(bufferevent_get_input(bev_)) > 0)
    bufferevent_trigger(bev_, EV_READ, BEV_TRIG_IGNORE_WATERMARKS | BEV_TRIG_DEFER_CALLBACKS);
}

void HttpConnection::fail(ErrorCode code, const std::string& message) {
  if (state_ == State::closing || state_ == State::dead) return;
  write_answer(http_status(code), error_body(code, message), false);
  start_closing();
}

void HttpConnection::start_closing() {
  state_ = State::closing;
  evtimer_del(timer_);
  arm_timer(kClosingSeconds);
  if (evbuffer_get_length(bufferevent_get_output(bev_)) == 0) on_write(bev_, this);
}

void HttpConnection::start_event_stream() {
  if (state_ != State::handling) return;
  if (peer_closed_) {
    abort();
    return;
  }
  chunked_ = head_.minor_version == 1;
  std::string out = chunked_ ? "HTTP/1.1 200 OK\r\n" : "HTTP/1.0 200 OK\r\n";
  out += "Content-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\n";
  if (chunked_) out += "Transfer-Encoding: chunked\r\n";
  out += "\r\n";
  send_bytes(out);
  state_ = State::streaming;
}

bool HttpConnection::send_chunk(std::string_view text, bool catch_up) {
  if (state_ != State::streaming) return false;
  if (text.empty()) return true;
  const std::size_t unsent = evbuffer_get_length(bufferevent_get_output(bev_));
  const std::uint64_t unsent_live = std::min<std::uint64_t>(unsent, added_ - catch_up_);
  if (unsent_live > kMaxUnsentStreamBytes) {
    if (const auto n = table_.stream_cap_log().hit())
      spdlog::warn("closed {} stream(s) whose client stopped reading (over {} bytes unsent); they resume from "
                   "their cursor", *n, kMaxUnsentStreamBytes);
    abort();
    return false;
  }
  std::string frame;
  if (chunked_) {
    char size[32];
    std::snprintf(size, sizeof size, "%zx\r\n", text.size());
    frame = size;
  }
  frame.append(text);
  if (chunked_) frame += "\r\n";
  send_bytes(frame);
  added_ += frame.size();
  if (catch_up) catch_up_ += frame.size();
  return true;
}

void HttpConnection::end_stream() {
  if (state_ != State::streaming) return;
  if (chunked_) send_bytes("0\r\n\r\n");
  start_closing();
}

void HttpConnection::abort() {
  if (state_ == State::dead) return;
  state_ = State::dead;
  bufferevent_disable(bev_, EV_READ | EV_WRITE);
  evtimer_del(timer_);
  table_.doom(id_);
}

ConnectionTable::ConnectionTable(event_base* base, ConnectionSettings settings, RequestHandler handler)
    : base_(base), settings_(settings), handler_(std::move(handler)) {
  reap_ev_ = event_new(base_, -1, 0, &ConnectionTable::on_reap, this);
}

ConnectionTable::~ConnectionTable() {
  // Close callbacks are not run: their owners (hub, batch) are gone or already cleared them.
  conns_.clear();
  event_free(reap_ev_);
}

void ConnectionTable::adopt(int fd) {
  const auto open = static_cast<int>(conns_.size() - refusing_.size());
  const bool refuse = open >= settings_.max_connections;
  if (refuse) {
    if (const auto n = refused_log_.hit())
      spdlog::warn("refused {} connection(s): {} connections are open, the cap (--max-connections)", *n, open);
    if (static_cast<int>(refusing_.size()) >= kRefusingAtOnce) {
      ::close(fd);
      return;
    }
  }
  bufferevent* bev = nullptr;
  if (settings_.tls != nullptr) {
    SSL* ssl = settings_.tls->new_session();
    // From here the bufferevent owns the session: freed with it.
    if (ssl != nullptr)
      bev = bufferevent_openssl_socket_new(base_, fd, ssl, BUFFEREVENT_SSL_ACCEPTING, BEV_OPT_CLOSE_ON_FREE);
    // A client that closes without TLS's close_notify has still just closed: EOF, as over plain TCP.
    if (bev != nullptr) bufferevent_openssl_set_allow_dirty_shutdown(bev, 1);
  } else {
    bev = bufferevent_socket_new(base_, fd, BEV_OPT_CLOSE_ON_FREE);
  }
  if (bev == nullptr) {
    ::close(fd);
    return;
  }
  const HttpConnection::Id id = next_id_++;
  if (refuse) refusing_.emplace(id, true);
  conns_.emplace(id, std::make_unique<HttpConnection>(*this, id, bev, refuse));
}

HttpConnection* ConnectionTable::find(HttpConnection::Id id) {
  const auto it = conns_.find(id);
  return it == conns_.end() ? nullptr : it->second.get();
}

void ConnectionTable::doom(HttpConnection::Id id) {
  doomed_.push_back(id);
  event_active(reap_ev_, EV_TIMEOUT, 0);
}

void ConnectionTable::on_reap(int, short, void* arg) { static_cast<ConnectionTable*>(arg)->reap(); }

void ConnectionTable::reap() {
  std::vector<HttpConnection::Id> ids = std::move(doomed_);
  doomed_.clear();
  for (const auto id : ids) {
    auto it = conns_.find(id);
    if (it == conns_.end()) continue;
    std::unique_ptr<HttpConnection> conn = std::move(it->second);
    conns_.erase(it);
    refusing_.erase(id);
    if (auto cb = conn->take_close_callback()) {
      try {
        cb();
      } catch (const std::exception& e) {
        spdlog::error("closing a connection failed: {}", e.what());
      }
    }
  }
}

}  // namespace agentworks::server
