// A deliberately small HTTP/1.1 client over a plain loopback socket. Tests need full control of the bytes
// (malformed JSON, oversize bodies, garbage request lines) and to read streams incrementally with deadlines,
// which a general-purpose client hides.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace agentworks::testing {

using Headers = std::map<std::string, std::string>;  // response header names are lower-cased

struct HttpResponse {
  int status = 0;  // 0: no HTTP answer (transport error or timeout, see `error`)
  Headers headers;
  std::string body;
  std::string error;
};

// "http://127.0.0.1:PORT[/...]" -> PORT; throws on anything else (tests only talk to loopback).
int port_of_url(const std::string& url);

// A connected socket with a read buffer; every read takes a deadline.
class Connection {
 public:
  using Clock = std::chrono::steady_clock;
  explicit Connection(int port);  // throws std::runtime_error when it cannot connect
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection();

  // Writes everything it can; false when the peer closed or reset (it may still have sent an answer).
  bool write_all(const std::string& bytes);
  void shutdown_write();
  // A line without its CRLF/LF; nullopt at EOF or the deadline.
  std::optional<std::string> read_line(Clock::time_point deadline);
  std::optional<std::string> read_exact(std::size_t n, Clock::time_point deadline);
  // Whatever arrives next (at most what is buffered or one read); nullopt at EOF or deadline.
  std::optional<std::string> read_some(Clock::time_point deadline);
  std::string read_to_eof(Clock::time_point deadline);
  bool eof() const { return eof_ && buffer_.empty(); }
  bool timed_out() const { return timed_out_; }

 private:
  bool fill(Clock::time_point deadline);
  int fd_ = -1;
  std::string buffer_;
  bool eof_ = false;
  bool timed_out_ = false;
};

// Reads a status line and headers. Returns false (and sets response.error) when they do not arrive.
bool read_response_head(Connection& conn, Connection::Clock::time_point deadline, HttpResponse& response);

// Decodes a response body incrementally: chunked, Content-Length or until EOF.
class BodyReader {
 public:
  BodyReader(Connection& conn, const Headers& headers);
  // The next piece of body; nullopt when the body ended (see ended()) or at the deadline.
  std::optional<std::string> next(Connection::Clock::time_point deadline);
  bool ended() const { return ended_; }

 private:
  Connection& conn_;
  bool chunked_ = false;
  std::optional<std::size_t> chunk_left_;  // size of the chunk being read
  bool chunk_crlf_pending_ = false;        // the CRLF after a chunk's data is still to be read
  std::optional<std::size_t> remaining_;  // Content-Length left
  bool ended_ = false;
};

class HttpClient {
 public:
  explicit HttpClient(std::string base_url, std::string token = "");
  const std::string& base_url() const { return base_url_; }
  void set_token(std::string token) { token_ = std::move(token); }

  // A full request with Connection: close; `body` is sent as application/json when present.
  HttpResponse request(const std::string& method, const std::string& path,
                       const std::optional<std::string>& body = std::nullopt, const Headers& extra_headers = {},
                       std::chrono::milliseconds timeout = std::chrono::seconds(40)) const;
  HttpResponse get(const std::string& path) const { return request("GET", path); }
  HttpResponse post(const std::string& path, const std::string& body) const { return request("POST", path, body); }
  HttpResponse del(const std::string& path) const { return request("DELETE", path); }

  // Sends raw bytes and returns the parsed answer (status 0 when none came).
  HttpResponse send_raw(const std::string& bytes, std::chrono::milliseconds timeout = std::chrono::seconds(10)) const;

 private:
  std::string base_url_;
  std::string token_;
  int port_;
};

// Percent-encodes a query parameter value.
std::string url_encode(const std::string& value);

}  // namespace agentworks::testing
