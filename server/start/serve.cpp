#include "start/serve.hpp"

#include <arpa/inet.h>
#include <event2/event.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <filesystem>

#include "agentworks/error.hpp"
#include "conversations/crew_conversations.hpp"
#include "http/batch.hpp"
#include "http/connection.hpp"
#include "http/dispatcher.hpp"
#include "http/hub.hpp"
#include "http/listener.hpp"
#include "agent/agent_invocation.hpp"
#include "runner/call_runner.hpp"
#include "replicas/call_leases.hpp"
#include "replicas/replica_feed.hpp"
#include "wakeups/wakeup_ticker.hpp"
#include "store/calls_store.hpp"
#include "store/crew_sessions_store.hpp"
#include "store/store.hpp"
#include "store/wal_sync_faults.hpp"

namespace agentworks::server {

struct HttpServer::Impl {
  Store& store;
  event_base* base = nullptr;
  std::unique_ptr<ConnectionTable> connections;
  std::unique_ptr<Listener> listener;
  std::unique_ptr<Hub> hub;
  std::unique_ptr<WalSyncer> syncer;  // SQLite: outlives the batch, which waits for it on the way out
  std::unique_ptr<Batch> batch;
  std::unique_ptr<Dispatcher> dispatcher;
  std::unique_ptr<functions::CallRunner> runner;
  std::unique_ptr<conversations::CrewConversations> crew_turns;
  std::unique_ptr<ReplicaFeed> feed;   // PostgreSQL: other replicas' commits
  std::unique_ptr<CallLeases> leases;  // the calls this replica runs (PostgreSQL), served calls (any store)
  std::unique_ptr<WakeupTicker> wakeups;
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
    self->listener->stop();
    self->wakeups.reset();  // nothing more fires; a due one not yet committed stays pending
    self->connections->set_stopping();
    self->batch->drain();
    self->hub->shutdown();
    // Give the last answers a moment to reach the sockets before the loop stops.
    const timeval drain{0, 200000};
    event_base_loopexit(self->base, &drain);
  }
};

namespace {

int listen_on(const ListenAddress& a) {
  sockaddr_storage storage{};
  socklen_t length = 0;
  const auto port = htons(static_cast<std::uint16_t>(a.port));
  bool parsed = false;
  if (a.ipv6) {
    auto* v6 = reinterpret_cast<sockaddr_in6*>(&storage);
    v6->sin6_family = AF_INET6;
    v6->sin6_port = port;
    parsed = inet_pton(AF_INET6, a.host.c_str(), &v6->sin6_addr) == 1;
    length = sizeof *v6;
  } else {
    auto* v4 = reinterpret_cast<sockaddr_in*>(&storage);
    v4->sin_family = AF_INET;
    v4->sin_port = port;
    parsed = inet_pton(AF_INET, a.host.c_str(), &v4->sin_addr) == 1;
    length = sizeof *v4;
  }
  if (!parsed) throw Error(ErrorCode::usage, "--listen must be IPV4:PORT or [IPV6]:PORT, e.g. 127.0.0.1:0");
  const int fd = ::socket(a.ipv6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) throw Error(ErrorCode::internal, std::string("socket: ") + std::strerror(errno));
  const int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  // [::]:PORT is IPv6 only: the IPv4 rule (loopback, TLS) is judged on IPv4 addresses alone.
  if (a.ipv6) ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
  // No Nagle: small SSE frames must not wait for the client's delayed ACK (accepted sockets inherit this).
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  // SOMAXCONN-sized backlog: a thousand streams may connect at once.
  if (::bind(fd, reinterpret_cast<sockaddr*>(&storage), length) != 0 || ::listen(fd, SOMAXCONN) != 0) {
    const std::string why = std::strerror(errno);
    ::close(fd);
    throw Error(ErrorCode::usage, "cannot listen on " + a.url_host() + ":" + std::to_string(a.port) + ": " + why);
  }
  return fd;
}

int bound_port(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  if (addr.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port);
  return ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
}

}  // namespace

HttpServer::HttpServer(Store& store, const Limits& limits, const ListenAddress& address, const TlsContext* tls,
                       const std::string& tls_cert)
    : impl_(std::make_unique<Impl>(store)) {
  std::signal(SIGPIPE, SIG_IGN);
  Impl& s = *impl_;
  // The changelist folds the add/remove pairs one loop turn makes on a socket (read off while answering, on
  // again after) into at most one epoll_ctl per socket per turn. Its one hazard, a descriptor dup()ed while
  // registered, does not arise here: the server never duplicates its sockets.
  event_config* config = event_config_new();
  if (config == nullptr) throw Error(ErrorCode::internal, "cannot create the event loop");
  event_config_set_flag(config, EVENT_BASE_FLAG_EPOLL_USE_CHANGELIST);
  s.base = event_base_new_with_config(config);
  event_config_free(config);
  if (s.base == nullptr) throw Error(ErrorCode::internal, "cannot create the event loop");
  ConnectionSettings settings;
  settings.max_connections = limits.max_connections;
  settings.request_deadline_seconds = limits.request_deadline_seconds;
  settings.tls = tls;
  s.connections = std::make_unique<ConnectionTable>(s.base, settings,
                                                    [&s](HttpConnection& c) { s.dispatcher->handle(c); });
  s.hub = std::make_unique<Hub>(s.base, store, limits);
  s.batch = std::make_unique<Batch>(s.base, store, *s.hub, *s.connections);
  if (store.engine() == db::Engine::sqlite) {
    s.syncer = make_wal_syncer(store.db_path().string() + "-wal");
    store.defer_wal_sync();
    s.batch->set_syncer(s.syncer.get());
  }
  s.dispatcher = std::make_unique<Dispatcher>(store, *s.hub, *s.batch);

  const int fd = listen_on(address);
  s.port = bound_port(fd);
  functions::RunnerConfig runner_config;
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error(ErrorCode::internal, "cannot find the server's own executable: " + ec.message());
  runner_config.keeper = (self.parent_path() / "agentworks-keeper").string();
  if (::access(runner_config.keeper.c_str(), X_OK) != 0)
    throw Error(ErrorCode::internal, runner_config.keeper + " is missing: it is installed with agentworks-server "
                                     "and runs every function call; reinstall agentworks");
  runner_config.agentworks_cli = functions::find_agentworks_cli(self.parent_path());
  runner_config.server_url = std::string(tls != nullptr ? "https://" : "http://") +
                             (address.host == "0.0.0.0" ? std::string("127.0.0.1")
                              : address.host == "::"    ? std::string("[::1]")
                                                        : address.url_host()) +
                             ":" + std::to_string(s.port);
  if (tls != nullptr) runner_config.server_ca_file = std::filesystem::absolute(tls_cert).string();
  s.runner = std::make_unique<functions::CallRunner>(s.base, store, [&s] { s.batch->schedule(); }, runner_config);
  s.crew_turns = std::make_unique<conversations::CrewConversations>(s.base, store, [&s] { s.batch->schedule(); },
                                                                    runner_config);
  s.batch->set_after_commit([&s](const StoreEvents& events) {
    s.runner->on_committed(events);
    s.crew_turns->on_committed(events);
  });
  if (store.engine() == db::Engine::postgresql) {
    s.feed = std::make_unique<ReplicaFeed>(s.base, store, *s.hub, store.url());
    s.batch->set_message_feed([&s] { s.feed->catch_up(); });
    s.feed->set_cancel_handler([&s](const std::vector<std::string>& ids) { s.runner->cancel(ids); });
  }
  s.leases = std::make_unique<CallLeases>(s.base, store, [&s] { s.batch->schedule(); });
  s.wakeups = std::make_unique<WakeupTicker>(s.base, store, *s.hub, store.limits().wakeup_tick_seconds,
                                             [&s] { s.batch->schedule(); });
  s.listener = std::make_unique<Listener>(s.base, fd, [&s](int client) { s.connections->adopt(client); });
  s.sigterm = evsignal_new(s.base, SIGTERM, &Impl::on_signal, &s);
  s.sigint = evsignal_new(s.base, SIGINT, &Impl::on_signal, &s);
  event_add(s.sigterm, nullptr);
  event_add(s.sigint, nullptr);
}

HttpServer::~HttpServer() {
  Impl& s = *impl_;
  if (s.batch) s.batch->drain();
  if (s.batch) s.batch->set_after_commit({});
  if (s.runner && s.runner->running() > 0) {
    // Stopping ends every execution (the keepers kill their trees); their calls read interrupted from now on.
    s.runner.reset();
    try {
      s.store.in_request([&s] { interrupt_open_calls(s.store, OpenCalls::this_replica); });
      s.batch->drain();
    } catch (const std::exception& e) {
      spdlog::error("cannot record the interrupted calls (the next start will): {}", e.what());
    }
  }
  s.runner.reset();
  if (s.crew_turns && s.crew_turns->running() > 0) {
    // Their trees end with them; their messages read interrupted (R-K2), now or at the next start.
    s.crew_turns.reset();
    try {
      s.store.in_request([&s] { interrupt_cut_turns(s.store, CutTurns::at_replica_start); });
      s.batch->drain();
    } catch (const std::exception& e) {
      spdlog::error("cannot record the interrupted conversation turns (the next start will): {}", e.what());
    }
  }
  s.crew_turns.reset();
  s.wakeups.reset();
  if (s.hub) s.hub->shutdown();
  if (s.sigterm != nullptr) event_free(s.sigterm);
  if (s.sigint != nullptr) event_free(s.sigint);
  s.listener.reset();
  s.dispatcher.reset();
  s.batch.reset();
  s.hub.reset();
  s.connections.reset();
  if (s.base != nullptr) event_base_free(s.base);
}

int HttpServer::port() const { return impl_->port; }

void HttpServer::run() { event_base_dispatch(impl_->base); }

}  // namespace agentworks::server
