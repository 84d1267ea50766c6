// Our own HTTP/1.x connections on libevent bufferevents (docs/decisions/0002-own-http-framing.md): every byte the
// server sends is written here, so every error is the JSON error object, and the connection's whole life is
// bounded: an absolute deadline from accept (or, on a kept-alive connection, from the request's first byte) to
// the complete request, a cap on open connections, and a cap on unsent stream output.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "agentworks/error.hpp"
#include "http/log_throttle.hpp"
#include "http/request_head.hpp"

struct bufferevent;
struct event;
struct event_base;

namespace agentworks::server {

inline constexpr std::size_t kMaxUnsentStreamBytes = 1024 * 1024;  // per stream, beyond its catch-up
inline constexpr int kRefusingAtOnce = 16;                          // refusals in flight; more are just closed

class TlsContext;

struct ConnectionSettings {
  int max_connections = 1000;
  int request_deadline_seconds = 15;  // accept (or first byte) to complete request
  int idle_seconds = 60;              // a kept-alive connection waiting for its next request
  int write_timeout_seconds = 60;     // a client that does not read an answer
  const TlsContext* tls = nullptr;    // set: every accepted connection is TLS (the handshake counts in the deadline)
};

class ConnectionTable;

class HttpConnection {
 public:
  using Id = std::uint64_t;
  HttpConnection(ConnectionTable& table, Id id, bufferevent* bev, bool refuse);
  ~HttpConnection();
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  Id id() const { return id_; }
  const RequestHead& head() const { return head_; }
  const std::string& body() const { return body_; }
  // The client closed its side while its request was being handled.
  bool peer_closed() const { return peer_closed_; }

  // A complete application/json answer to the current request.
  void reply(int status, const std::string& json_body);
  void reply_error(ErrorCode code, const std::string& message);
  // A text/event-stream answer: chunked for HTTP/1.1; the connection closes when it ends.
  void start_event_stream();
  // False when the connection is gone or was closed because its client does not read. `catch_up` bytes do not
  // count toward the unsent-output cap (the backlog a stream starts with).
  bool send_chunk(std::string_view text, bool catch_up = false);
  void end_stream();
  // Called once when the connection closes while a callback is set (client gone, error, cap).
  void set_close_callback(std::function<void()> cb) { on_close_ = std::move(cb); }
  std::function<void()> take_close_callback() { return std::move(on_close_); }
  void set_write_timeout(int seconds);
  // Closes at once, without flushing.
  void abort();

  static void on_read(bufferevent* bev, void* arg);
  static void on_write(bufferevent* bev, void* arg);
  static void on_event(bufferevent* bev, short what, void* arg);
  static void on_timer(int fd, short what, void* arg);

 private:
  enum class State { head, body, handling, streaming, closing, dead };
  void process_input();
  void read_head();
  void read_body();
  void fail(ErrorCode code, const std::string& message);
  void write_answer(int status, const std::string& body, bool keep_alive);
  // Every byte the server sends goes through here, in order.
  void send_bytes(std::string_view bytes);
  void start_closing();
  void arm_timer(int seconds);
  void after_reply(bool keep_alive);

  ConnectionTable& table_;
  Id id_;
  bufferevent* bev_;
  event* timer_ = nullptr;
  State state_ = State::head;
  bool deadline_armed_ = false;  // the request deadline runs (else the idle timer)
  bool peer_closed_ = false;
  bool shut_ = false;            // our write side is shut; lingering for the client's EOF
  bool chunked_ = false;
  std::uint64_t added_ = 0;      // stream bytes written so far
  std::uint64_t catch_up_ = 0;   // of which catch-up (exempt from the cap)
  RequestHead head_;
  std::string body_;
  std::function<void()> on_close_;
};

class ConnectionTable {
 public:
  using RequestHandler = std::function<void(HttpConnection&)>;
  ConnectionTable(event_base* base, ConnectionSettings settings, RequestHandler handler);
  ~ConnectionTable();
  ConnectionTable(const ConnectionTable&) = delete;
  ConnectionTable& operator=(const ConnectionTable&) = delete;

  // A freshly accepted socket: served, or (over the cap) answered 503 busy and closed.
  void adopt(int fd);
  HttpConnection* find(HttpConnection::Id id);
  // After SIGTERM: answers close their connections.
  void set_stopping() { stopping_ = true; }
  bool stopping() const { return stopping_; }

  event_base* base() const { return base_; }
  const ConnectionSettings& settings() const { return settings_; }
  void handle(HttpConnection& c) { handler_(c); }
  // Frees the connection on the next loop turn (never inside a caller's iteration), running its close callback.
  void doom(HttpConnection::Id id);
  LogThrottle& stream_cap_log() { return stream_cap_log_; }

 private:
  static void on_reap(int fd, short what, void* arg);
  void reap();

  event_base* base_;
  ConnectionSettings settings_;
  RequestHandler handler_;
  event* reap_ev_ = nullptr;
  HttpConnection::Id next_id_ = 1;
  std::unordered_map<HttpConnection::Id, std::unique_ptr<HttpConnection>> conns_;
  std::unordered_map<HttpConnection::Id, bool> refusing_;
  std::vector<HttpConnection::Id> doomed_;
  bool stopping_ = false;
  LogThrottle refused_log_{std::chrono::seconds(10)};
  LogThrottle stream_cap_log_{std::chrono::seconds(10)};
};

}  // namespace agentworks::server
