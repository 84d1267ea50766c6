#include "testing/tcp_balancer.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace agentworks::testing {

// Both sockets close when the last of its two copying threads lets go; shutdown() before that wakes them.
struct TcpBalancer::Pair {
  int client_fd;
  int backend_fd;
  Pair(int client, int backend) : client_fd(client), backend_fd(backend) {}
  Pair(const Pair&) = delete;
  Pair& operator=(const Pair&) = delete;
  ~Pair() {
    ::close(client_fd);
    ::close(backend_fd);
  }
  void shut_both() const {
    ::shutdown(client_fd, SHUT_RDWR);
    ::shutdown(backend_fd, SHUT_RDWR);
  }
};

namespace {

sockaddr_in balancer_loopback_address(int port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return addr;
}

bool balancer_write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

// Copies from -> to until either side ends, then ends both (the other direction's thread wakes and stops).
void balancer_copy(const std::shared_ptr<TcpBalancer::Pair>& pair, int from, int to) {
  std::array<char, 64 * 1024> buffer{};
  while (true) {
    const ssize_t n = ::recv(from, buffer.data(), buffer.size(), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || !balancer_write_all(to, buffer.data(), static_cast<std::size_t>(n))) break;
  }
  pair->shut_both();
}

}  // namespace

TcpBalancer::TcpBalancer(std::vector<int> backend_ports, int listen_port) : backends_(std::move(backend_ports)) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) throw std::runtime_error(std::string("balancer socket: ") + std::strerror(errno));
  const int one = 1;
  // A port a killed server (or an earlier balancer) just left may still have connections in TIME_WAIT.
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr = balancer_loopback_address(listen_port);
  if (::bind(listen_fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listen_fd_, 128) != 0) {
    const std::string why = std::strerror(errno);
    ::close(listen_fd_);
    throw std::runtime_error("balancer cannot listen on 127.0.0.1:" + std::to_string(listen_port) + ": " + why);
  }
  socklen_t len = sizeof addr;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  int wake[2];
  if (::pipe2(wake, O_CLOEXEC) != 0) {
    ::close(listen_fd_);
    throw std::runtime_error(std::string("balancer pipe: ") + std::strerror(errno));
  }
  wake_read_ = wake[0];
  wake_write_ = wake[1];
  acceptor_ = std::thread([this] { accept_loop(); });
}

TcpBalancer::~TcpBalancer() {
  const char byte = 0;
  while (::write(wake_write_, &byte, 1) < 0 && errno == EINTR) {
  }
  acceptor_.join();
  ::close(listen_fd_);  // from here connecting to the port is refused
  std::vector<Pump> pumps;
  {
    const std::lock_guard lock(mutex_);
    for (const auto& weak : pairs_) {
      if (const auto pair = weak.lock()) pair->shut_both();
    }
    pumps.swap(pumps_);
  }
  for (auto& pump : pumps) pump.thread.join();
  ::close(wake_read_);
  ::close(wake_write_);
}

void TcpBalancer::set_backends(std::vector<int> backend_ports) {
  const std::lock_guard lock(mutex_);
  backends_ = std::move(backend_ports);
  next_ = 0;
}

void TcpBalancer::accept_loop() {
  while (true) {
    std::array<pollfd, 2> fds{pollfd{listen_fd_, POLLIN, 0}, pollfd{wake_read_, POLLIN, 0}};
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents != 0) return;
    if ((fds[0].revents & POLLIN) == 0) continue;
    const int client = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    const int backend = connect_next_backend();
    if (backend < 0) {
      ::close(client);  // nobody to serve it: the client sees the connection end, as with a server going down
      continue;
    }
    start_pumps(client, backend);
  }
}

int TcpBalancer::connect_next_backend() {
  std::vector<int> order;
  {
    const std::lock_guard lock(mutex_);
    for (std::size_t i = 0; i < backends_.size(); ++i) order.push_back(backends_[(next_ + i) % backends_.size()]);
    if (!backends_.empty()) next_ = (next_ + 1) % backends_.size();
  }
  for (const int port : order) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    const sockaddr_in addr = balancer_loopback_address(port);
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0) return fd;
    ::close(fd);  // refused (a replica down): the next one
  }
  return -1;
}

void TcpBalancer::start_pumps(int client_fd, int backend_fd) {
  auto pair = std::make_shared<Pair>(client_fd, backend_fd);  // not const: each thread lets go of its copy
  const std::lock_guard lock(mutex_);
  join_finished_pumps_locked();
  pairs_.push_back(pair);
  for (const bool upstream : {true, false}) {
    auto done = std::make_shared<bool>(false);
    std::thread thread([this, pair, done, upstream]() mutable {
      if (upstream) {
        balancer_copy(pair, pair->client_fd, pair->backend_fd);
      } else {
        balancer_copy(pair, pair->backend_fd, pair->client_fd);
      }
      pair.reset();  // the last one out closes both sockets
      const std::lock_guard done_lock(mutex_);
      *done = true;
    });
    pumps_.push_back(Pump{std::move(thread), std::move(done)});
  }
}

void TcpBalancer::join_finished_pumps_locked() {
  // A finished thread only waits for mutex_ to be released before it returns; joining it here is short.
  for (auto it = pumps_.begin(); it != pumps_.end();) {
    if (*it->done) {
      it->thread.join();
      it = pumps_.erase(it);
    } else {
      ++it;
    }
  }
  std::erase_if(pairs_, [](const std::weak_ptr<Pair>& weak) { return weak.expired(); });
}

}  // namespace agentworks::testing
