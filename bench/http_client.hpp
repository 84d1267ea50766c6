// A blocking keep-alive HTTP/1.1 client over one loopback TCP connection. Each sender
// or reader thread of the benchmark owns one; it reconnects when the server closes.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace agentworks::bench {

struct HttpResult {
  int status = 0;        // 0 when the request failed at the transport level
  std::string body;
  std::string error;     // transport error text when status == 0
};

class HttpClient {
 public:
  HttpClient(std::string host, std::uint16_t port, std::string token);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // method "GET"/"POST"/"DELETE"; body sent as application/json when non-empty.
  HttpResult request(std::string_view method, std::string_view target, std::string_view body = {});

  // Every socket operation gives up after this long (bounds the benchmark's run time).
  void set_timeout(std::chrono::milliseconds timeout) { timeout_ = timeout; }

 private:
  bool ensure_connected(std::string* error);
  void disconnect();
  HttpResult attempt(std::string_view method, std::string_view target, std::string_view body);

  std::string host_;
  std::uint16_t port_;
  std::string token_;
  int fd_ = -1;
  std::string buffer_;  // bytes read past the previous response
  std::chrono::milliseconds timeout_{30000};
};

// Opens a TCP connection to host:port (blocking, with TCP_NODELAY), from `source` when it is not empty (an
// IPv4 address of this machine, such as 127.0.0.2). Returns -1 and sets *error on failure.
int connect_tcp(const std::string& host, std::uint16_t port, std::string* error, const std::string& source = "");

}  // namespace agentworks::bench
