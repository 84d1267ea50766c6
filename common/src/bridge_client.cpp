#include "agentworks/bridge_client.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "agentworks/local_protocol.hpp"
#include "agentworks/paths.hpp"
#include "agentworks/private_socket.hpp"
#include "agentworks/unique_fd.hpp"

namespace agentworks::bridge_client {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;
constexpr std::size_t kMaxLine = 16u * 1024 * 1024;  // answers are far smaller; a runaway peer is cut off

int ms_left(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(left);
}

NoAnswer timed_out(const std::filesystem::path& socket) {
  return NoAnswer(ErrorCode::unreachable, "the agentworks bridge at " + socket.string() +
                                           " did not answer in time; see `agentworks daemon logs`, or restart it "
                                           "with `agentworks daemon stop` and `agentworks daemon start`");
}

// Connects without blocking, only after the directory and the listening process are checked to be this user's
// (a planted socket is refused before a byte is sent); no directory, ENOENT or ECONNREFUSED mean no bridge runs.
int connect_socket(const std::filesystem::path& socket) {
  const int dir_fd = private_socket::open_checked_dir(socket.parent_path());
  if (dir_fd < 0) throw Error(ErrorCode::unreachable, not_running_message());
  UniqueFd dir(dir_fd);
  const std::string p = private_socket::path_through_fd(dir.get(), socket.parent_path(), socket.filename().string());
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (p.size() >= sizeof addr.sun_path) {
    throw Error(ErrorCode::internal, "the bridge socket path is too long for a Unix socket: " + p);
  }
  std::memcpy(addr.sun_path, p.c_str(), p.size() + 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) throw Error(ErrorCode::internal, std::string("cannot create a socket: ") + std::strerror(errno));
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    const int err = errno;
    ::close(fd);
    if (err == ENOENT || err == ECONNREFUSED || err == ENOTDIR) throw Error(ErrorCode::unreachable, not_running_message());
    if (err == EAGAIN) {
      throw Error(ErrorCode::busy, "the agentworks bridge is overloaded (its socket backlog is full); retry shortly");
    }
    throw Error(ErrorCode::unreachable,
                "cannot connect to the agentworks bridge at " + socket.string() + ": " + std::strerror(err));
  }
  try {
    private_socket::check_peer_is_this_user(fd, socket);
  } catch (...) {
    ::close(fd);
    throw;
  }
  return fd;
}

void send_all(int fd, const std::string& bytes, Clock::time_point deadline, const std::filesystem::path& socket) {
  std::size_t off = 0;
  while (off < bytes.size()) {
    const ssize_t n = ::send(fd, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
    if (n > 0) {
      off += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
      pollfd p{fd, POLLOUT, 0};
      if (ms_left(deadline) == 0) throw timed_out(socket);
      ::poll(&p, 1, ms_left(deadline));
      continue;
    }
    throw NoAnswer(ErrorCode::unreachable, "the agentworks bridge closed the connection; see `agentworks daemon logs`");
  }
}

// Reads lines with a deadline, and stops at once when `cancel_fd` (if not -1) becomes readable; the buffer
// survives between lines.
class LineReader {
 public:
  LineReader(int fd, Clock::time_point deadline, const std::filesystem::path& socket, int cancel_fd)
      : fd_(fd), cancel_fd_(cancel_fd), deadline_(deadline), socket_(socket) {}

  std::string next() {
    while (true) {
      const auto nl = buffer_.find('\n');
      if (nl != std::string::npos) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty()) continue;
        return line;
      }
      if (buffer_.size() > kMaxLine) throw Error(ErrorCode::internal, "the bridge sent an oversize line");
      const int left = ms_left(deadline_);
      if (left == 0) throw timed_out(socket_);
      pollfd p[2] = {{fd_, POLLIN, 0}, {cancel_fd_, POLLIN, 0}};
      const int ready = ::poll(p, cancel_fd_ < 0 ? 1 : 2, left);
      if (ready <= 0) continue;  // timeout (checked above) or EINTR
      if (cancel_fd_ >= 0 && p[1].revents != 0) {
        throw NoAnswer(ErrorCode::unreachable, "the request to the agentworks bridge was cancelled");
      }
      if (p[0].revents == 0) continue;
      char buf[8192];
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n > 0) {
        buffer_.append(buf, static_cast<std::size_t>(n));
      } else if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
        throw NoAnswer(ErrorCode::unreachable,
                       "the agentworks bridge closed the connection before answering; see `agentworks daemon logs`");
      }
    }
  }

 private:
  int fd_;
  int cancel_fd_;
  Clock::time_point deadline_;
  const std::filesystem::path& socket_;
  std::string buffer_;
};

}  // namespace

std::filesystem::path socket_path() { return paths::bridge_socket(); }

std::string not_running_message() {
  return "the agentworks bridge is not running: start it with `agentworks daemon start` (or `agentworks up`)";
}

std::string encode_request(const json& request, long long id) {
  if (!request.is_object()) throw Error(ErrorCode::internal, "a bridge request must be a JSON object");
  json copy = request;
  copy["id"] = id;
  return copy.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

void check_greeting(std::string_view line) {
  const json g = json::parse(line, nullptr, false);
  if (!g.is_object() || !g.contains("agentworks_bridge")) {
    throw Error(ErrorCode::internal, "the program on the bridge socket is not an agentworks bridge (bad greeting)");
  }
}

std::optional<json> match_answer(std::string_view line, long long id) {
  json a = json::parse(line, nullptr, false);
  if (!a.is_object()) throw Error(ErrorCode::internal, "the bridge sent an answer that is not a JSON object");
  const auto it = a.find("id");
  if (it == a.end() || !it->is_number_integer() || it->get<long long>() != id) return std::nullopt;
  if (const auto err = a.find("error"); err != a.end()) {
    std::string code;
    std::string message = "the bridge refused the request";
    if (err->is_object()) {
      if (err->contains("code") && (*err)["code"].is_string()) code = (*err)["code"].get<std::string>();
      if (err->contains("message") && (*err)["message"].is_string()) message = (*err)["message"].get<std::string>();
    }
    throw Error(parse_code(code).value_or(ErrorCode::internal), message);
  }
  return a;
}

namespace {

json call_until(const json& request, std::chrono::milliseconds timeout, const std::filesystem::path& socket,
                int cancel_fd) {
  static std::atomic<long long> next_id{0};  // the MCP child calls from two threads
  const long long id = ++next_id;
  const auto deadline = Clock::now() + timeout;
  UniqueFd fd(connect_socket(socket));
  LineReader reader(fd.get(), deadline, socket, cancel_fd);
  check_greeting(reader.next());
  send_all(fd.get(), encode_request(request, id), deadline, socket);
  while (true) {
    if (auto answer = match_answer(reader.next(), id)) return *answer;
  }
}

}  // namespace

json call(const json& request, std::chrono::milliseconds timeout, const std::filesystem::path& socket) {
  return call_until(request, timeout, socket, -1);
}

json call_cancellable(const json& request, std::chrono::milliseconds timeout, int cancel_fd,
                      const std::filesystem::path& socket) {
  return call_until(request, timeout, socket, cancel_fd);
}

std::optional<json> ping(std::chrono::milliseconds timeout, const std::filesystem::path& socket) {
  try {
    return call(json{{"op", local_protocol::op::ping}}, timeout, socket);
  } catch (const Error& e) {
    if (e.code() == ErrorCode::forbidden) throw;  // a planted socket is not "no bridge": say so
    return std::nullopt;
  }
}

}  // namespace agentworks::bridge_client
