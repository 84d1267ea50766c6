// A blocking client for the bridge's local socket (docs/protocol.md "Local socket protocol (v1)"): one JSON
// object per line, the greeting consumed on connect, answers matched by request id. Every read has a deadline.
#pragma once

#include <chrono>
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace agentworks::bench {

class BridgeSocketClient {
 public:
  BridgeSocketClient() = default;
  ~BridgeSocketClient();
  BridgeSocketClient(const BridgeSocketClient&) = delete;
  BridgeSocketClient& operator=(const BridgeSocketClient&) = delete;

  // Connects and reads the greeting. False (with *error) when nothing answers.
  bool connect(const std::string& socket_path, std::string* error);
  bool connected() const { return fd_ >= 0; }
  void close();

  // Sends `request` with a fresh id and returns the answer with that id. Throws std::runtime_error on a
  // closed connection or when no answer arrives within `timeout`.
  nlohmann::json call(const nlohmann::json& request, std::chrono::milliseconds timeout = std::chrono::seconds(30));

 private:
  bool read_line(std::string* line, std::chrono::steady_clock::time_point deadline);

  int fd_ = -1;
  long next_id_ = 0;
  std::string buffer_;
};

}  // namespace agentworks::bench
