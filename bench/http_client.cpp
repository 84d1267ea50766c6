#include "http_client.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "testing/http_wire.hpp"

namespace agentworks::bench {

using testing::ChunkedDecoder;
using testing::parse_response_head;

int connect_tcp(const std::string& host, std::uint16_t port, std::string* error, const std::string& source) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    *error = std::string("socket: ") + std::strerror(errno);
    return -1;
  }
  if (!source.empty()) {
    // Port 0 with IP_BIND_ADDRESS_NO_PORT: the port is picked at connect, per (source, destination) pair, so
    // each source address brings its own ephemeral range.
    const int one = 1;
    ::setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
    sockaddr_in local{};
    local.sin_family = AF_INET;
    if (::inet_pton(AF_INET, source.c_str(), &local.sin_addr) != 1 ||
        ::bind(fd, reinterpret_cast<const sockaddr*>(&local), sizeof local) != 0) {
      *error = "bind to the source address " + source + ": " + std::strerror(errno);
      ::close(fd);
      return -1;
    }
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  if (::inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) {
    ::close(fd);
    *error = "not an IPv4 address: " + host;
    return -1;
  }
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    *error = "connect " + host + ":" + std::to_string(port) + ": " + std::strerror(errno);
    ::close(fd);
    return -1;
  }
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

HttpClient::HttpClient(std::string host, std::uint16_t port, std::string token)
    : host_(std::move(host)), port_(port), token_(std::move(token)) {}

HttpClient::~HttpClient() { disconnect(); }

void HttpClient::disconnect() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  buffer_.clear();
}

bool HttpClient::ensure_connected(std::string* error) {
  if (fd_ >= 0) return true;
  fd_ = connect_tcp(host_, port_, error);
  if (fd_ < 0) return false;
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(timeout_.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((timeout_.count() % 1000) * 1000);
  ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  return true;
}

HttpResult HttpClient::request(std::string_view method, std::string_view target, std::string_view body) {
  const bool reused = fd_ >= 0;
  HttpResult result = attempt(method, target, body);
  // A keep-alive connection the server closed meanwhile fails at once: retry once fresh.
  if (result.status == 0 && reused) result = attempt(method, target, body);
  return result;
}

HttpResult HttpClient::attempt(std::string_view method, std::string_view target, std::string_view body) {
  HttpResult result;
  if (!ensure_connected(&result.error)) return result;

  std::string req;
  req.reserve(256 + body.size());
  req.append(method).append(" ").append(target).append(" HTTP/1.1\r\nHost: ").append(host_);
  req.append("\r\nAuthorization: Bearer ").append(token_);
  if (!body.empty()) {
    req.append("\r\nContent-Type: application/json\r\nContent-Length: ").append(std::to_string(body.size()));
  }
  req.append("\r\n\r\n").append(body);
  std::size_t sent = 0;
  while (sent < req.size()) {
    const ssize_t n = ::send(fd_, req.data() + sent, req.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      result.error = std::string("send: ") + std::strerror(errno);
      disconnect();
      return result;
    }
    sent += static_cast<std::size_t>(n);
  }

  char chunk[16384];
  auto read_more = [&]() -> bool {
    for (;;) {
      const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
      if (n > 0) {
        buffer_.append(chunk, static_cast<std::size_t>(n));
        return true;
      }
      if (n < 0 && errno == EINTR) continue;
      result.error = n == 0 ? "server closed the connection" : std::string("recv: ") + std::strerror(errno);
      return false;
    }
  };

  std::size_t head_end;
  while ((head_end = buffer_.find("\r\n\r\n")) == std::string::npos) {
    if (buffer_.size() > 65536 || !read_more()) {
      disconnect();
      return result;
    }
  }
  const auto head = parse_response_head(std::string_view(buffer_).substr(0, head_end));
  if (!head) {
    result.error = "unparseable response head";
    disconnect();
    return result;
  }
  buffer_.erase(0, head_end + 4);

  if (head->chunked) {
    ChunkedDecoder decoder;
    for (;;) {
      std::size_t consumed = 0;
      const auto state =
          decoder.feed(buffer_, &consumed, [&](std::string_view data) { result.body.append(data); });
      buffer_.erase(0, consumed);
      if (state == ChunkedDecoder::Result::done) break;
      if (state == ChunkedDecoder::Result::error || !read_more()) {
        if (result.error.empty()) result.error = "bad chunked body";
        disconnect();
        return result;
      }
    }
  } else if (head->content_length) {
    while (buffer_.size() < *head->content_length) {
      if (!read_more()) {
        disconnect();
        return result;
      }
    }
    result.body = buffer_.substr(0, *head->content_length);
    buffer_.erase(0, *head->content_length);
  } else {
    while (read_more()) {
    }
    result.body.swap(buffer_);
    result.error.clear();
    disconnect();
  }
  result.status = head->status;
  if (head->close) disconnect();
  return result;
}

}  // namespace agentworks::bench
