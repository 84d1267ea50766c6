#include "testing/http_client.hpp"
#include "testing/http_wire.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace agentworks::testing {

int port_of_url(const std::string& url) {
  static const std::regex pattern(R"(^http://127\.0\.0\.1:([0-9]+)(/.*)?$)");
  std::smatch m;
  if (!std::regex_match(url, m, pattern)) throw std::invalid_argument("not a loopback URL: " + url);
  return std::stoi(m[1].str());
}

Connection::Connection(int port) {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    const std::string why = std::strerror(errno);
    ::close(fd_);
    fd_ = -1;
    throw std::runtime_error("connect 127.0.0.1:" + std::to_string(port) + ": " + why);
  }
}

Connection::~Connection() {
  if (fd_ >= 0) ::close(fd_);
}

bool Connection::write_all(const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t w = ::send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<std::size_t>(w);
  }
  return true;
}

void Connection::shutdown_write() { ::shutdown(fd_, SHUT_WR); }

bool Connection::fill(Clock::time_point deadline) {
  if (eof_) return false;
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      timed_out_ = true;
      return false;
    }
    pollfd pfd{fd_, POLLIN, 0};
    const int ready = ::poll(&pfd, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (ready < 0 && errno != EINTR) {
      eof_ = true;
      return false;
    }
    if (ready <= 0) continue;
    char buf[16384];
    const ssize_t r = ::recv(fd_, buf, sizeof buf, 0);
    if (r > 0) {
      buffer_.append(buf, static_cast<std::size_t>(r));
      return true;
    }
    if (r < 0 && errno == EINTR) continue;
    eof_ = true;  // orderly close or reset
    return false;
  }
}

std::optional<std::string> Connection::read_line(Clock::time_point deadline) {
  while (true) {
    const auto nl = buffer_.find('\n');
    if (nl != std::string::npos) {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      return line;
    }
    if (!fill(deadline)) return std::nullopt;
  }
}

std::optional<std::string> Connection::read_exact(std::size_t n, Clock::time_point deadline) {
  while (buffer_.size() < n) {
    if (!fill(deadline)) return std::nullopt;
  }
  std::string out = buffer_.substr(0, n);
  buffer_.erase(0, n);
  return out;
}

std::optional<std::string> Connection::read_some(Clock::time_point deadline) {
  if (buffer_.empty() && !fill(deadline)) return std::nullopt;
  std::string out;
  out.swap(buffer_);
  return out;
}

std::string Connection::read_to_eof(Clock::time_point deadline) {
  while (fill(deadline)) {
  }
  std::string out;
  out.swap(buffer_);
  return out;
}

bool read_response_head(Connection& conn, Connection::Clock::time_point deadline, HttpResponse& response) {
  auto status_line = conn.read_line(deadline);
  if (!status_line) {
    response.error = conn.timed_out() ? "timed out waiting for the status line" : "connection closed without an answer";
    return false;
  }
  std::string head = *status_line;
  while (true) {
    auto line = conn.read_line(deadline);
    if (!line) {
      response.error = "headers did not end";
      return false;
    }
    if (line->empty()) break;
    head += "\n" + *line;
  }
  auto parsed = parse_response_head(head);
  if (!parsed) {
    response.error = "bad response head: " + *status_line;
    return false;
  }
  response.headers = std::move(parsed->headers);
  response.status = parsed->status;
  return true;
}

BodyReader::BodyReader(Connection& conn, const Headers& headers) : conn_(conn) {
  if (auto te = headers.find("transfer-encoding"); te != headers.end() && te->second.find("chunked") != std::string::npos) {
    chunked_ = true;
  } else if (auto cl = headers.find("content-length"); cl != headers.end()) {
    remaining_ = static_cast<std::size_t>(std::stoull(cl->second));
    if (*remaining_ == 0) ended_ = true;
  }
}

std::optional<std::string> BodyReader::next(Connection::Clock::time_point deadline) {
  if (ended_) return std::nullopt;
  if (chunked_) {
    // State survives a timeout in the middle of a chunk, so a later call continues where this one stopped.
    if (chunk_crlf_pending_) {
      if (!conn_.read_line(deadline)) {
        if (conn_.eof()) ended_ = true;
        return std::nullopt;
      }
      chunk_crlf_pending_ = false;
    }
    if (!chunk_left_) {
      auto size_line = conn_.read_line(deadline);
      if (!size_line) {
        if (conn_.eof()) ended_ = true;
        return std::nullopt;
      }
      const std::size_t size =
          static_cast<std::size_t>(std::stoull(size_line->substr(0, size_line->find(';')), nullptr, 16));
      if (size == 0) {
        conn_.read_line(deadline);  // the CRLF after the last chunk (no trailers expected)
        ended_ = true;
        return std::nullopt;
      }
      chunk_left_ = size;
    }
    auto data = conn_.read_exact(*chunk_left_, deadline);
    if (!data) {
      if (conn_.eof()) ended_ = true;
      return std::nullopt;
    }
    chunk_left_.reset();
    chunk_crlf_pending_ = true;
    return data;
  }
  if (remaining_) {
    auto data = conn_.read_some(deadline);
    if (!data) {
      if (conn_.eof()) ended_ = true;
      return std::nullopt;
    }
    if (data->size() >= *remaining_) {
      data->resize(*remaining_);
      ended_ = true;
    } else {
      *remaining_ -= data->size();
    }
    return data;
  }
  auto data = conn_.read_some(deadline);
  if (!data && conn_.eof()) ended_ = true;
  return data;
}

HttpClient::HttpClient(std::string base_url, std::string token)
    : base_url_(std::move(base_url)), token_(std::move(token)), port_(port_of_url(base_url_)) {}

HttpResponse HttpClient::request(const std::string& method, const std::string& path,
                                 const std::optional<std::string>& body, const Headers& extra_headers,
                                 std::chrono::milliseconds timeout) const {
  std::ostringstream req;
  req << method << ' ' << path << " HTTP/1.1\r\nHost: 127.0.0.1:" << port_ << "\r\nConnection: close\r\n";
  if (!token_.empty()) req << "Authorization: Bearer " << token_ << "\r\n";
  if (body) req << "Content-Type: application/json\r\nContent-Length: " << body->size() << "\r\n";
  for (const auto& [name, value] : extra_headers) req << name << ": " << value << "\r\n";
  req << "\r\n";
  if (body) req << *body;
  return send_raw(req.str(), timeout);
}

HttpResponse HttpClient::send_raw(const std::string& bytes, std::chrono::milliseconds timeout) const {
  HttpResponse response;
  const auto deadline = Connection::Clock::now() + timeout;
  try {
    Connection conn(port_);
    conn.write_all(bytes);  // a server may answer (413) and close before reading everything: read anyway
    if (!read_response_head(conn, deadline, response)) return response;
    BodyReader reader(conn, response.headers);
    while (auto piece = reader.next(deadline)) response.body += *piece;
    if (!reader.ended() && conn.timed_out()) response.error = "timed out reading the body";
  } catch (const std::exception& e) {
    response.status = 0;
    response.error = e.what();
  }
  return response;
}

std::string url_encode(const std::string& value) {
  static const char hex[] = "0123456789ABCDEF";
  std::string out;
  for (const char ch : value) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

}  // namespace agentworks::testing
