// One-off JSON requests to the server on the bridge's loop (attach, release check, outbox), through CurlMulti.
#pragma once

#include <functional>
#include <string>

#include "platform/curl_multi.hpp"

namespace agentworks::bridge {

struct HttpResponse {
  long status = 0;         // 0 when no HTTP answer arrived
  std::string body;        // the answer body (bounded)
  std::string transport_error;  // set when the server could not be reached or the transfer failed
  bool certificate_failure = false;  // of which: the server's TLS certificate was refused
  bool reached() const { return transport_error.empty() && status != 0; }
  bool ok() const { return reached() && status >= 200 && status < 300; }
};

class HttpClient {
 public:
  using Callback = std::function<void(const HttpResponse&)>;
  static constexpr long kDefaultTimeoutMs = 15000;

  explicit HttpClient(CurlMulti& multi) : multi_(multi) {}
  // method: GET, POST or DELETE; body is JSON text (empty for none); token empty for none.
  void request(const std::string& method, const std::string& url, const std::string& token,
               const std::string& body, Callback callback, long timeout_ms = kDefaultTimeoutMs);

 private:
  CurlMulti& multi_;
};

// Joins a server base URL ("http://127.0.0.1:8080" or with a trailing slash) and a path ("/v1/...").
std::string join_url(const std::string& base, const std::string& path);

}  // namespace agentworks::bridge
