// The test harness's round-robin balancer (testing/tcp_balancer.hpp), which the pg2.* tests put in front of two
// server replicas: connections alternate between backends, a refusing backend is skipped, bytes pass both ways,
// either side closing closes the other, and backends can be replaced.
#include "testing/tcp_balancer.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>

#include "testing/net_probe.hpp"

namespace agentworks::testing {
namespace {

sockaddr_in balancer_test_address(int port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return addr;
}

// A backend that answers every connection with its name followed by what it read first, then closes.
class NamedBackend {
 public:
  explicit NamedBackend(std::string name) : name_(std::move(name)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr = balancer_test_address(0);
    EXPECT_EQ(::bind(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr), 0);
    EXPECT_EQ(::listen(fd_, 16), 0);
    socklen_t len = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] {
      while (true) {
        const int c = ::accept(fd_, nullptr, nullptr);
        if (c < 0) return;
        char buf[256];
        const ssize_t n = ::recv(c, buf, sizeof buf, 0);
        const std::string reply = name_ + ":" + std::string(buf, n > 0 ? static_cast<std::size_t>(n) : 0);
        ::send(c, reply.data(), reply.size(), MSG_NOSIGNAL);
        ::close(c);
      }
    });
  }
  ~NamedBackend() {
    ::shutdown(fd_, SHUT_RDWR);  // wakes accept()
    thread_.join();
    ::close(fd_);
  }
  int port() const { return port_; }

 private:
  std::string name_;
  int fd_ = -1;
  int port_ = 0;
  std::thread thread_;
};

// Connects to the balancer, sends `text`, returns everything read until the other side closed.
std::string exchange_through(int port, const std::string& text) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const sockaddr_in addr = balancer_test_address(port);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return "<refused>";
  }
  ::send(fd, text.data(), text.size(), MSG_NOSIGNAL);
  std::string got;
  char buf[256];
  ssize_t n;
  while ((n = ::recv(fd, buf, sizeof buf, 0)) > 0) got.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  return got;
}

TEST(TcpBalancer, AlternatesBackendsAndCopiesBothWays) {
  NamedBackend a("a"), b("b");
  TcpBalancer balancer({a.port(), b.port()});
  EXPECT_EQ(exchange_through(balancer.port(), "one"), "a:one");
  EXPECT_EQ(exchange_through(balancer.port(), "two"), "b:two");
  EXPECT_EQ(exchange_through(balancer.port(), "three"), "a:three");
}

TEST(TcpBalancer, SkipsARefusingBackendAndTakesReplacements) {
  NamedBackend a("a");
  const int dead = closed_loopback_port();
  TcpBalancer balancer({dead, a.port()});
  EXPECT_EQ(exchange_through(balancer.port(), "x"), "a:x");
  EXPECT_EQ(exchange_through(balancer.port(), "y"), "a:y");
  NamedBackend c("c");
  balancer.set_backends({c.port()});
  EXPECT_EQ(exchange_through(balancer.port(), "z"), "c:z");
  balancer.set_backends({dead});
  EXPECT_EQ(exchange_through(balancer.port(), "w"), "");  // accepted, then closed: nobody to serve it
}

TEST(TcpBalancer, ItsPortRefusesOnceItIsGone) {
  NamedBackend a("a");
  int port = 0;
  {
    TcpBalancer balancer({a.port()});
    port = balancer.port();
    EXPECT_EQ(exchange_through(port, "q"), "a:q");
  }
  EXPECT_EQ(exchange_through(port, "q"), "<refused>");
  TcpBalancer again({a.port()}, port);  // the same port again, as a server restarted on its port
  EXPECT_EQ(again.port(), port);
  EXPECT_EQ(exchange_through(port, "r"), "a:r");
}

}  // namespace
}  // namespace agentworks::testing
