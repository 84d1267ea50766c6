// The HTTP server: one libevent event loop, evhttp, the dispatcher, the group-commit batch and the hub.
#pragma once

#include "http/listen_policy.hpp"

#include <memory>
#include <string>

#include "limits.hpp"

namespace agentworks::server {

class Store;
class TlsContext;

class HttpServer {
 public:
  // Binds the address (port 0 picks a free one); throws agentworks::Error on failure. With `tls` (kept alive by
  // the caller) every connection is TLS; `tls_cert` is then what function executions trust for their own requests.
  HttpServer(Store& store, const Limits& limits, const ListenAddress& address, const TlsContext* tls = nullptr,
             const std::string& tls_cert = {});
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  int port() const;
  // Runs until SIGTERM/SIGINT, then ends streams, flushes and returns.
  void run();

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace agentworks::server
