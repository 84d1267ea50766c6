// A foreign program listening where an agentworks bridge used to be looked for ($XDG_RUNTIME_DIR/agentworks,
// /tmp/agentworks-<uid>): on a person's desktop such a path can hold another bridge or another user's planted
// socket. It greets like a bridge and counts every connection, so a test fails when any agentworks program still
// talks to it.
#pragma once

#include <atomic>
#include <filesystem>
#include <string>
#include <thread>

namespace agentworks::testing {

class ForeignBridge {
 public:
  // Binds `socket` (creating its directory 0700). Throws std::runtime_error when the path cannot be bound.
  explicit ForeignBridge(const std::filesystem::path& socket);
  ForeignBridge(const ForeignBridge&) = delete;
  ForeignBridge& operator=(const ForeignBridge&) = delete;
  ~ForeignBridge();

  const std::filesystem::path& socket() const { return socket_; }
  int connections() const { return connections_.load(); }

 private:
  void serve();

  std::filesystem::path socket_;
  int listen_fd_ = -1;
  int stop_pipe_[2] = {-1, -1};
  std::atomic<int> connections_{0};
  std::thread thread_;
};

}  // namespace agentworks::testing
