// Helpers for the bridge integration tests (bridge_*_test.cpp): a small local-socket client speaking the
// bridge protocol (docs/protocol.md "Local socket protocol (v1)") and a handle on a real agentworks-bridge
// process started in a temp HOME.
#pragma once

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>

#include "harness/process.hpp"
#include "harness/temp_home.hpp"
#include "harness/wait.hpp"

#ifndef AGENTWORKS_BRIDGE_BIN
#error "AGENTWORKS_BRIDGE_BIN must be defined by CMake"
#endif

namespace agentworks::testing {

inline std::string bridge_binary() {
  const char* v = std::getenv("AGENTWORKS_TEST_BRIDGE_BIN");
  return (v != nullptr && v[0] != '\0') ? std::string(v) : std::string(AGENTWORKS_BRIDGE_BIN);
}

inline std::filesystem::path bridge_socket(const TempHome& home) {
  return home.bridge_socket();
}

// One connection to the bridge socket. Reads take a deadline; nothing blocks forever.
class BridgeClient {
 public:
  explicit BridgeClient(const std::filesystem::path& socket_path) {
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    const std::string p = socket_path.string();
    if (p.size() >= sizeof addr.sun_path) throw std::runtime_error("socket path too long: " + p);
    std::memcpy(addr.sun_path, p.c_str(), p.size() + 1);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      ::close(fd_);
      fd_ = -1;
      throw std::runtime_error("cannot connect to " + p + ": " + std::strerror(errno));
    }
  }
  BridgeClient(const BridgeClient&) = delete;
  BridgeClient& operator=(const BridgeClient&) = delete;
  ~BridgeClient() {
    if (fd_ >= 0) ::close(fd_);
  }

  bool send_raw(const std::string& bytes) {
    std::size_t off = 0;
    while (off < bytes.size()) {
      const ssize_t n = ::send(fd_, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
      if (n <= 0) return false;
      off += static_cast<std::size_t>(n);
    }
    return true;
  }

  // The next line (without "\n"), or nullopt at EOF or after the timeout.
  std::optional<std::string> read_line(std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
      const auto nl = buffer_.find('\n');
      if (nl != std::string::npos) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return line;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return std::nullopt;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      char buf[65536];
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) return std::nullopt;
      buffer_.append(buf, static_cast<std::size_t>(n));
    }
  }

  nlohmann::json greeting() {
    const auto line = read_line();
    if (!line) throw std::runtime_error("no greeting from the bridge");
    return nlohmann::json::parse(*line);
  }

  // Sends {"id":N, ...request} and returns the answer with that id.
  nlohmann::json call(nlohmann::json request, std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
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
  void mark_greeted() { greeted_ = true; }

 private:
  int fd_ = -1;
  std::string buffer_;
  int next_id_ = 0;
  bool greeted_ = false;
};

// A one-shot call on a fresh connection; nullopt when the bridge does not answer.
inline std::optional<nlohmann::json> bridge_call(const TempHome& home, const nlohmann::json& request) {
  try {
    BridgeClient c(bridge_socket(home));
    return c.call(request);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// A real agentworks-bridge in the foreground, as systemd would run it.
class BridgeProcess {
 public:
  explicit BridgeProcess(const TempHome& home, EnvOverrides extra = {}) : home_(home), extra_(std::move(extra)) {}
  ~BridgeProcess() { child_.kill_and_wait(); }

  void start() {
    ++runs_;
    const auto dir = home_.path("bridge-logs");
    std::filesystem::create_directories(dir);
    EnvOverrides env = merge_env(home_.env(), extra_);
    child_ = Child::start({bridge_binary(), "--foreground"}, env, dir / ("out" + std::to_string(runs_)),
                          dir / ("err" + std::to_string(runs_)));
    const bool up = wait_until(
        [&] {
          const auto a = bridge_call(home_, {{"op", "ping"}});
          return a && a->value("pid", 0) == child_.pid();
        },
        std::chrono::seconds(20));
    if (!up) throw std::runtime_error("the bridge did not come up:\n" + child_.read_stderr());
  }
  // Clean stop through the socket; returns the exit code.
  int stop() {
    bridge_call(home_, {{"op", "shutdown"}});
    const auto code = child_.wait_exit(std::chrono::seconds(20));
    return code ? *code : child_.kill_and_wait();
  }
  int kill() { return child_.kill_and_wait(); }
  Child& child() { return child_; }
  std::string log() const {
    return read_file(home_.state_home() / "agentworks" / "bridge.log");
  }

 private:
  const TempHome& home_;
  EnvOverrides extra_;
  Child child_;
  int runs_ = 0;
};

}  // namespace agentworks::testing
