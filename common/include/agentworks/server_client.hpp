// Blocking HTTP client for the agentworks server API (docs/protocol.md, "Server HTTP API").
// Every failure becomes an agentworks::Error: the server's {"error":{"code","message"}} keeps its code;
// a connection failure or timeout becomes ErrorCode::unreachable with a hint to start the server.
// One instance reuses one connection and is not thread-safe; use one per thread.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "agentworks/error.hpp"

namespace agentworks {

struct ServerClientOptions {
  long connect_timeout_ms = 3000;   // a dead or black-holed server fails fast
  long request_timeout_ms = 15000;  // per request; long polls add their wait on top
  std::string ca_file;              // CA bundle for https (the login's --ca-file); empty: the system store
  // When set and true, a request in flight (a long poll too) is given up within about a second: Error(unavailable).
  // For a thread that must end when its owner does.
  const std::atomic<bool>* abandon = nullptr;
};

class ServerClient {
 public:
  // base_url: "http://host:port" (a trailing '/' is dropped). token: bearer token, empty for none.
  // Throws Error(bad_request) when base_url is not an http:// or https:// URL, Error(usage) for plain http beyond
  // loopback. A refused server certificate is Error(untrusted_certificate).
  explicit ServerClient(std::string base_url, std::string token = {}, ServerClientOptions options = {});
  ~ServerClient();
  ServerClient(ServerClient&&) noexcept;
  ServerClient& operator=(ServerClient&&) noexcept;
  ServerClient(const ServerClient&) = delete;
  ServerClient& operator=(const ServerClient&) = delete;

  // `path` is the route with its query string, e.g. "/v1/messages?after=0". wait_seconds extends the
  // timeout for a long poll (wait_seconds=25 needs more than 25 s).
  nlohmann::json get(std::string_view path, int wait_seconds = 0);
  nlohmann::json post(std::string_view path, const nlohmann::json& body, int wait_seconds = 0);
  nlohmann::json del(std::string_view path);

  // HTTP status of the last successful request (e.g. 201 created vs 200 repeated).
  long last_status() const { return last_status_; }
  const std::string& base_url() const { return base_url_; }

 private:
  nlohmann::json request(const char* method, std::string_view path, const std::string* body,
                         long timeout_ms);

  struct Handle;
  std::unique_ptr<Handle> handle_;
  std::string base_url_;
  std::string token_;
  ServerClientOptions options_;
  long last_status_ = 0;
};

// Percent-encodes everything except RFC 3986 unreserved characters (for path segments and query values).
std::string url_encode(std::string_view text);

// The Error for a non-2xx answer: the server's error code and message when the body is the error JSON,
// else a code derived from the HTTP status. Exposed for tests.
Error error_from_response(long http_status, std::string_view body, std::string_view url);

// The Error for a transport failure (connection refused, timeout, ...): ErrorCode::unreachable.
Error unreachable_error(std::string_view base_url, std::string_view detail);

// curl_global_init exactly once per process, thread-safe. ServerClient calls it; call it early in
// programs that start threads before their first client.
void ensure_curl_initialized();

}  // namespace agentworks
