#include "ui/page_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "agentworks/error.hpp"
#include "ui/peer_uid.hpp"

namespace agentworks::cli::ui {
namespace {

bool send_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;  // closed, or the send timeout passed: a reader that does not read is dropped
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// Reads one request (head, then Content-Length bytes) before the deadline; nullopt with `status` set when it
// must be refused (400, 408, 413, 431).
std::optional<HttpRequest> read_request(int fd, std::chrono::steady_clock::time_point deadline, int& status,
                                        std::string& problem) {
  std::string buffer;
  HeadParse head;
  char chunk[4096];
  for (;;) {
    if (head.status != HeadStatus::complete) {
      head = parse_head(buffer, PageServer::kMaxHead);
      if (head.status == HeadStatus::bad) {
        status = buffer.size() > PageServer::kMaxHead ? 431 : 400;
        problem = head.problem;
        return std::nullopt;
      }
      if (head.status == HeadStatus::complete && head.content_length > PageServer::kMaxBody) {
        status = 413;
        return std::nullopt;
      }
    }
    if (head.status == HeadStatus::complete && buffer.size() >= head.head_bytes + head.content_length) {
      head.request.body = buffer.substr(head.head_bytes, head.content_length);
      return head.request;
    }
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      status = 408;
      return std::nullopt;
    }
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;  // the deadline check above answers
    const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      status = 0;  // the client went away: nothing to answer
      return std::nullopt;
    }
    buffer.append(chunk, static_cast<std::size_t>(n));
  }
}

void stream_events(int fd, StateWatcher& watcher) {
  const std::string head =
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n"
      "X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\nretry: 1000\n\n";
  if (!send_all(fd, head)) return;
  std::uint64_t seen = 0;
  while (!watcher.stopping()) {
    const auto snapshot = watcher.wait_newer(seen, std::chrono::steady_clock::now() + std::chrono::seconds(15));
    if (watcher.stopping()) return;
    if (snapshot.version > seen) {
      seen = snapshot.version;
      // The state is compact JSON: one line, so one data field.
      if (!send_all(fd, "event: state\nid: " + std::to_string(seen) + "\ndata: " + snapshot.json + "\n\n")) return;
    } else if (!send_all(fd, ": keepalive\n\n")) {
      return;
    }
  }
}

}  // namespace

PageServer::PageServer(std::uint16_t port) {
  listen_fd_ = UniqueFd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!listen_fd_.valid()) throw Error(ErrorCode::unavailable, std::string("socket: ") + std::strerror(errno));
  const int one = 1;
  ::setsockopt(listen_fd_.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  if (::bind(listen_fd_.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listen_fd_.get(), 32) != 0) {
    throw Error(ErrorCode::unavailable, "cannot listen on 127.0.0.1:" + std::to_string(port) + ": " +
                                            std::strerror(errno) + "; pick another --port, or 0 for a free one");
  }
  socklen_t len = sizeof addr;
  ::getsockname(listen_fd_.get(), reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
}

PageServer::~PageServer() { reap(true); }

void PageServer::reap(bool all) {
  std::lock_guard lock(workers_mutex_);
  for (auto it = workers_.begin(); it != workers_.end();) {
    if (all || it->done) {
      if (it->thread.joinable()) it->thread.join();
      it = workers_.erase(it);
    } else {
      ++it;
    }
  }
}

void PageServer::serve(PageRoutes& routes, StateWatcher& watcher, int stop_fd) {
  for (;;) {
    pollfd fds[2] = {{listen_fd_.get(), POLLIN, 0}, {stop_fd, POLLIN, 0}};
    const int ready = ::poll(fds, 2, 1000);
    reap(false);
    if (ready < 0 && errno != EINTR) break;
    if (fds[1].revents != 0) break;
    if (ready <= 0 || (fds[0].revents & POLLIN) == 0) continue;
    sockaddr_in peer{};
    socklen_t len = sizeof peer;
    UniqueFd fd(::accept4(listen_fd_.get(), reinterpret_cast<sockaddr*>(&peer), &len, SOCK_CLOEXEC));
    if (!fd.valid()) continue;  // EMFILE and the like: poll again after the reap
    sockaddr_in self{};
    socklen_t self_len = sizeof self;
    ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&self), &self_len);
    // Another user's process (or one the tables do not show) gets nothing, not even an error status.
    const auto owner = loopback_peer_uid(peer, self);
    if (!owner || *owner != ::getuid()) continue;
    if (active_ >= kMaxConnections) continue;
    ++active_;
    std::lock_guard lock(workers_mutex_);
    auto& worker = workers_.emplace_back();
    worker.thread = std::thread([this, &routes, &watcher, &worker, client = std::move(fd)]() mutable {
      connection(routes, watcher, std::move(client));
      --active_;
      worker.done = true;
    });
  }
  watcher.stop();  // ends the event streams
  reap(true);
}

void PageServer::connection(PageRoutes& routes, StateWatcher& watcher, UniqueFd fd) {
  const timeval send_timeout{5, 0};
  ::setsockopt(fd.get(), SOL_SOCKET, SO_SNDTIMEO, &send_timeout, sizeof send_timeout);
  int status = 0;
  std::string problem;
  const auto request = read_request(fd.get(), std::chrono::steady_clock::now() + kRequestDeadline, status, problem);
  if (!request) {
    if (status != 0) {
      auto r = plain(status);
      if (!problem.empty()) r.body = problem + "\n";
      send_all(fd.get(), serialize(r));
    }
    return;
  }
  if (routes.is_event_stream(*request)) {
    stream_events(fd.get(), watcher);
    return;
  }
  send_all(fd.get(), serialize(routes.handle(*request)));
}

}  // namespace agentworks::cli::ui
