#include "mock_model/http_listener.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <optional>
#include <stdexcept>

namespace agentworks::e2e {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// Buffered reads with a generous idle limit: a client that stops sending mid-request is dropped.
class Reader {
 public:
  explicit Reader(int fd) : fd_(fd) {}
  std::optional<std::string> line() {
    while (true) {
      const auto nl = buf_.find('\n');
      if (nl != std::string::npos) {
        std::string l = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        if (!l.empty() && l.back() == '\r') l.pop_back();
        return l;
      }
      if (!fill()) return std::nullopt;
    }
  }
  std::optional<std::string> exact(std::size_t n) {
    while (buf_.size() < n) {
      if (!fill()) return std::nullopt;
    }
    std::string out = buf_.substr(0, n);
    buf_.erase(0, n);
    return out;
  }

 private:
  bool fill() {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 30'000) <= 0) return false;
    char chunk[65536];
    const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n <= 0) return false;
    buf_.append(chunk, static_cast<std::size_t>(n));
    return true;
  }
  int fd_;
  std::string buf_;
};

std::optional<HttpRequest> read_request(int fd) {
  Reader r(fd);
  HttpRequest req;
  const auto start = r.line();
  if (!start) return std::nullopt;
  const auto sp1 = start->find(' ');
  const auto sp2 = start->find(' ', sp1 + 1);
  if (sp1 == std::string::npos || sp2 == std::string::npos) return std::nullopt;
  req.method = start->substr(0, sp1);
  req.target = start->substr(sp1 + 1, sp2 - sp1 - 1);
  while (true) {
    const auto l = r.line();
    if (!l) return std::nullopt;
    if (l->empty()) break;
    const auto colon = l->find(':');
    if (colon == std::string::npos) continue;
    req.headers[lower(l->substr(0, colon))] = trim(l->substr(colon + 1));
  }
  if (lower(req.headers["transfer-encoding"]).find("chunked") != std::string::npos) {
    while (true) {
      const auto size_line = r.line();
      if (!size_line) return std::nullopt;
      const std::size_t size = std::stoul(*size_line, nullptr, 16);
      if (size == 0) {
        while (true) {  // trailers up to the blank line
          const auto t = r.line();
          if (!t || t->empty()) break;
        }
        break;
      }
      const auto data = r.exact(size + 2);
      if (!data) return std::nullopt;
      req.body.append(*data, 0, size);
    }
  } else if (const auto it = req.headers.find("content-length"); it != req.headers.end()) {
    const auto data = r.exact(std::stoul(it->second));
    if (!data) return std::nullopt;
    req.body = *data;
  }
  return req;
}

const char* reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 404: return "Not Found";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 529: return "Overloaded";
    default: return "Status";
  }
}

}  // namespace

bool HttpWriter::head(int status, const std::string& content_type, long content_length) {
  std::string h = "HTTP/1.1 " + std::to_string(status) + " " + reason(status) + "\r\n";
  h += "Content-Type: " + content_type + "\r\nConnection: close\r\nCache-Control: no-cache\r\n";
  if (content_length >= 0) h += "Content-Length: " + std::to_string(content_length) + "\r\n";
  h += "request-id: req_mock\r\n\r\n";
  return write(h);
}

bool HttpWriter::write(const std::string& bytes) {
  std::size_t off = 0;
  while (ok_ && off < bytes.size()) {
    const ssize_t n = ::send(fd_, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
    if (n <= 0) {
      ok_ = false;
      break;
    }
    off += static_cast<std::size_t>(n);
  }
  return ok_;
}

HttpListener::HttpListener(Handler handler) : handler_(std::move(handler)) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) throw std::runtime_error("mock model: socket() failed");
  const int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listen_fd_, 64) != 0) {
    ::close(listen_fd_);
    throw std::runtime_error(std::string("mock model: bind/listen failed: ") + std::strerror(errno));
  }
  socklen_t len = sizeof addr;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  acceptor_ = std::thread([this] { accept_loop(); });
}

HttpListener::~HttpListener() {
  stopping_ = true;
  ::shutdown(listen_fd_, SHUT_RDWR);
  acceptor_.join();
  ::close(listen_fd_);
  std::vector<std::thread> workers;
  {
    std::lock_guard lock(mutex_);
    for (const int fd : open_fds_) ::shutdown(fd, SHUT_RDWR);
    workers.swap(workers_);
  }
  for (auto& w : workers) w.join();
}

void HttpListener::accept_loop() {
  while (!stopping_) {
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (stopping_) return;
      continue;
    }
    std::lock_guard lock(mutex_);
    if (stopping_) {
      ::close(fd);
      return;
    }
    open_fds_.push_back(fd);
    workers_.emplace_back([this, fd] { serve(fd); });
  }
}

void HttpListener::serve(int fd) {
  if (const auto req = read_request(fd)) {
    HttpWriter writer(fd);
    try {
      handler_(*req, writer);
    } catch (const std::exception&) {
      // The client sees a cut stream; the request was recorded before the handler answered.
    }
  }
  {
    std::lock_guard lock(mutex_);
    open_fds_.erase(std::remove(open_fds_.begin(), open_fds_.end(), fd), open_fds_.end());
  }
  ::shutdown(fd, SHUT_WR);
  ::close(fd);
}

}  // namespace agentworks::e2e
