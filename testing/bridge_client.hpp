// A small client for the bridge's local socket (docs/protocol.md "Local socket protocol (v1)"): one JSON object
// per line, the greeting read first, answers matched by request id. Every read has a deadline; nothing blocks
// forever. Used by the bridge tests and the benchmarks.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

namespace agentworks::testing {

class TempHome;

inline constexpr std::chrono::milliseconds kBridgeCallTimeout{20'000};

// One connection to the bridge socket.
class BridgeClient {
 public:
  // Connects; throws std::runtime_error when nothing listens at `socket_path`. The greeting is read by the first
  // call() (or by greeting()).
  explicit BridgeClient(const std::filesystem::path& socket_path);
  BridgeClient(const BridgeClient&) = delete;
  BridgeClient& operator=(const BridgeClient&) = delete;
  ~BridgeClient();

  // Connects and reads the greeting within 5 s; nullptr (with *error) when the bridge is not there or silent.
  // call() without a timeout then waits `call_timeout` (the benchmarks give slow ops more time).
  static std::unique_ptr<BridgeClient> open(const std::filesystem::path& socket_path, std::string* error,
                                            std::chrono::milliseconds call_timeout = kBridgeCallTimeout);

  bool send_raw(const std::string& bytes);
  // The next line (without "\n"), or nullopt at EOF or after the timeout.
  std::optional<std::string> read_line(std::chrono::milliseconds timeout = kBridgeCallTimeout);
  nlohmann::json greeting();
  // Sends {"id":N, ...request} and returns the answer with that id; throws std::runtime_error when the
  // connection closes or no line arrives within `timeout`.
  nlohmann::json call(nlohmann::json request, std::chrono::milliseconds timeout);
  nlohmann::json call(nlohmann::json request);
  void mark_greeted() { greeted_ = true; }

 private:
  int fd_ = -1;
  std::string buffer_;
  int next_id_ = 0;
  bool greeted_ = false;
  std::chrono::milliseconds call_timeout_ = kBridgeCallTimeout;
};

std::filesystem::path bridge_socket(const TempHome& home);

// A one-shot call on a fresh connection; nullopt when the bridge does not answer.
std::optional<nlohmann::json> bridge_call(const TempHome& home, const nlohmann::json& request);

}  // namespace agentworks::testing
