#include "http/server.hpp"

#include <arpa/inet.h>
#include <event2/event.h>
#include <event2/http.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <cstring>

#include "agentworks/error.hpp"
#include "agentworks/validation.hpp"
#include "http/batch.hpp"
#include "http/dispatcher.hpp"
#include "http/hub.hpp"
#include "store/store.hpp"

namespace agentworks::server {

struct HttpServer::Impl {
  Store& store;
  event_base* base = nullptr;
  evhttp* http = nullptr;
  evhttp_bound_socket* bound = nullptr;
  std::unique_ptr<Hub> hub;
  std::unique_ptr<Batch> batch;
  std::unique_ptr<Dispatcher> dispatcher;
  event* sigterm = nullptr;
  event* sigint = nullptr;
  int port = 0;
  bool stopping = false;

  explicit Impl(Store& s) : store(s) {}

  static void on_signal(evutil_socket_t, short, void* arg) {
    auto* self = static_cast<Impl*>(arg);
    if (self->stopping) return;
    self->stopping = true;
    spdlog::info("shutting down");
    if (self->bound != nullptr) {
      evhttp_del_accept_socket(self->http, self->bound);
      self->bound = nullptr;
    }
    self->batch->flush();
    self->hub->shutdown();
    // Give the last answers a moment to reach the sockets before the loop stops.
    const timeval drain{0, 200000};
    event_base_loopexit(self->base, &drain);
  }
};

HttpServer::HttpServer(Store& store, const Limits& limits, const std::string& host, int port)
    : impl_(std::make_unique<Impl>(store)) {
  std::signal(SIGPIPE, SIG_IGN);
  Impl& s = *impl_;
  s.base = event_base_new();
  if (s.base == nullptr) throw Error(ErrorCode::internal, "cannot create the event loop");
  s.http = evhttp_new(s.base);
  evhttp_set_allowed_methods(s.http, EVHTTP_REQ_GET | EVHTTP_REQ_POST | EVHTTP_REQ_DELETE | EVHTTP_REQ_PUT |
                                         EVHTTP_REQ_PATCH | EVHTTP_REQ_HEAD | EVHTTP_REQ_OPTIONS);
  // Bodies up to 4 MiB are read so the dispatcher can answer payload_too_large as JSON; larger ones are cut off.
  evhttp_set_max_body_size(s.http, 4 * 1024 * 1024);
  evhttp_set_max_headers_size(s.http, 64 * 1024);
  evhttp_set_timeout(s.http, 60);
  s.hub = std::make_unique<Hub>(s.base, store, limits);
  s.batch = std::make_unique<Batch>(s.base, store, *s.hub);
  s.dispatcher = std::make_unique<Dispatcher>(store, *s.hub, *s.batch);
  evhttp_set_gencb(s.http, &Dispatcher::on_request, s.dispatcher.get());

  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  if (port < 0 || port > 65535 || inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1)
    throw Error(ErrorCode::usage, "--listen must be IPV4:PORT, e.g. 127.0.0.1:0");
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) throw Error(ErrorCode::internal, std::string("socket: ") + std::strerror(errno));
  const int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  // No Nagle: small SSE frames must not wait for the client's delayed ACK (accepted sockets inherit this).
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  // SOMAXCONN-sized backlog: a thousand streams may connect at once.
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, SOMAXCONN) != 0) {
    const std::string why = std::strerror(errno);
    ::close(fd);
    throw Error(ErrorCode::usage, "cannot listen on " + host + ":" + std::to_string(port) + ": " + why);
  }
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  s.port = ntohs(addr.sin_port);
  s.bound = evhttp_accept_socket_with_handle(s.http, fd);
  if (s.bound == nullptr) {
    ::close(fd);
    throw Error(ErrorCode::internal, "cannot accept on the listening socket");
  }
  s.sigterm = evsignal_new(s.base, SIGTERM, &Impl::on_signal, &s);
  s.sigint = evsignal_new(s.base, SIGINT, &Impl::on_signal, &s);
  event_add(s.sigterm, nullptr);
  event_add(s.sigint, nullptr);
}

HttpServer::~HttpServer() {
  Impl& s = *impl_;
  if (s.batch) s.batch->flush();
  if (s.hub) s.hub->shutdown();
  if (s.sigterm != nullptr) event_free(s.sigterm);
  if (s.sigint != nullptr) event_free(s.sigint);
  if (s.http != nullptr) evhttp_free(s.http);
  s.dispatcher.reset();
  s.batch.reset();
  s.hub.reset();
  if (s.base != nullptr) event_base_free(s.base);
}

int HttpServer::port() const { return impl_->port; }

void HttpServer::run() { event_base_dispatch(impl_->base); }

}  // namespace agentworks::server
