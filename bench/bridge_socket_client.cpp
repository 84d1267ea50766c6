#include "bridge_socket_client.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace agentworks::bench {

BridgeSocketClient::~BridgeSocketClient() { close(); }

void BridgeSocketClient::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  buffer_.clear();
}

bool BridgeSocketClient::connect(const std::string& socket_path, std::string* error) {
  close();
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (socket_path.size() >= sizeof addr.sun_path) {
    *error = "socket path too long: " + socket_path;
    return false;
  }
  std::memcpy(addr.sun_path, socket_path.c_str(), socket_path.size() + 1);
  fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0 || ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    *error = "cannot connect to " + socket_path + ": " + std::strerror(errno);
    close();
    return false;
  }
  std::string greeting;
  if (!read_line(&greeting, std::chrono::steady_clock::now() + std::chrono::seconds(5))) {
    *error = "no greeting from the bridge on " + socket_path;
    close();
    return false;
  }
  return true;
}

bool BridgeSocketClient::read_line(std::string* line, std::chrono::steady_clock::time_point deadline) {
  while (true) {
    const auto nl = buffer_.find('\n');
    if (nl != std::string::npos) {
      line->assign(buffer_, 0, nl);
      buffer_.erase(0, nl + 1);
      return true;
    }
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) return false;
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left)) <= 0) continue;
    char buf[65536];
    const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n <= 0) return false;
    buffer_.append(buf, static_cast<std::size_t>(n));
  }
}

nlohmann::json BridgeSocketClient::call(const nlohmann::json& request, std::chrono::milliseconds timeout) {
  if (fd_ < 0) throw std::runtime_error("not connected to the bridge");
  nlohmann::json r = request;
  const long id = ++next_id_;
  r["id"] = id;
  const std::string bytes = r.dump() + "\n";
  std::size_t off = 0;
  while (off < bytes.size()) {
    const ssize_t n = ::send(fd_, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
    if (n <= 0) throw std::runtime_error("bridge connection closed on send");
    off += static_cast<std::size_t>(n);
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string line;
  while (read_line(&line, deadline)) {
    auto answer = nlohmann::json::parse(line, nullptr, false);
    if (answer.is_object() && answer.contains("id") && answer["id"] == id) return answer;
  }
  throw std::runtime_error("no answer from the bridge to " + request.value("op", std::string("?")));
}

}  // namespace agentworks::bench
