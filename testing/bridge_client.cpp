#include "testing/bridge_client.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <utility>

#include "testing/fd_line_reader.hpp"
#include "testing/temp_home.hpp"

namespace agentworks::testing {

BridgeClient::BridgeClient(const std::filesystem::path& socket_path) {
  fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string p = socket_path.string();
  if (p.size() >= sizeof addr.sun_path) {
    ::close(fd_);
    fd_ = -1;
    throw std::runtime_error("socket path too long: " + p);
  }
  std::memcpy(addr.sun_path, p.c_str(), p.size() + 1);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    const int err = errno;
    ::close(fd_);
    fd_ = -1;
    throw std::runtime_error("cannot connect to " + p + ": " + std::strerror(err));
  }
}

BridgeClient::~BridgeClient() {
  if (fd_ >= 0) ::close(fd_);
}

std::unique_ptr<BridgeClient> BridgeClient::open(const std::filesystem::path& socket_path, std::string* error,
                                                 std::chrono::milliseconds call_timeout) {
  std::unique_ptr<BridgeClient> client;
  try {
    client = std::make_unique<BridgeClient>(socket_path);
  } catch (const std::exception& e) {
    *error = e.what();
    return nullptr;
  }
  if (!client->read_line(std::chrono::seconds(5))) {
    *error = "no greeting from the bridge on " + socket_path.string();
    return nullptr;
  }
  client->mark_greeted();
  client->call_timeout_ = call_timeout;
  return client;
}

bool BridgeClient::send_raw(const std::string& bytes) {
  std::size_t off = 0;
  while (off < bytes.size()) {
    const ssize_t n = ::send(fd_, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return false;
    off += static_cast<std::size_t>(n);
  }
  return true;
}

std::optional<std::string> BridgeClient::read_line(std::chrono::milliseconds timeout) {
  return read_fd_line(fd_, buffer_, std::chrono::steady_clock::now() + timeout);
}

nlohmann::json BridgeClient::greeting() {
  const auto line = read_line();
  if (!line) throw std::runtime_error("no greeting from the bridge");
  return nlohmann::json::parse(*line);
}

nlohmann::json BridgeClient::call(nlohmann::json request, std::chrono::milliseconds timeout) {
  if (!greeted_) {
    greeting();
    greeted_ = true;
  }
  const int id = ++next_id_;
  request["id"] = id;
  if (!send_raw(request.dump() + "\n")) throw std::runtime_error("bridge connection closed on send");
  while (true) {
    const auto line = read_line(timeout);
    if (!line) throw std::runtime_error("no answer from the bridge to " + request.dump());
    auto answer = nlohmann::json::parse(*line);
    if (answer.contains("id") && answer["id"] == id) return answer;
  }
}

nlohmann::json BridgeClient::call(nlohmann::json request) { return call(std::move(request), call_timeout_); }

std::filesystem::path bridge_socket(const TempHome& home) { return home.bridge_socket(); }

std::optional<nlohmann::json> bridge_call(const TempHome& home, const nlohmann::json& request) {
  try {
    BridgeClient c(bridge_socket(home));
    return c.call(request);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace agentworks::testing
