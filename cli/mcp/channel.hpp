// The Claude channel of `agentworks mcp serve --claude-channel` (docs/mcp.md "Claude channel", R-C3): a background
// thread asks the bridge for this chat's waiting messages (`channel_take`: release-checked and persisted as offered
// BEFORE the answer, so an id is never offered twice, across reconnects and restarts; R-B5) and pushes each as
// notifications/claude/channel. An emitted notification is not an admission: the agent's ack sets the receipt
// (R-C4). A crash between the bridge's answer and the emission leaves the message readable, not re-offered.
#pragma once

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include <nlohmann/json_fwd.hpp>

#include "mcp/caller_identity.hpp"
#include "mcp/jsonrpc.hpp"

namespace agentworks::cli::mcp {

class ChannelPump {
 public:
  ChannelPump(LineWriter& writer, CallerIdentity caller) : writer_(writer), caller_(std::move(caller)) {}
  ~ChannelPump();
  ChannelPump(const ChannelPump&) = delete;
  ChannelPump& operator=(const ChannelPump&) = delete;

  // Starts the thread (once; later calls do nothing).
  void start();

 private:
  void run();

  LineWriter& writer_;
  CallerIdentity caller_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
};

// The notification params for one Message: {content, meta:{message_id, sender, inbox_id, attachment_id}}.
nlohmann::json channel_params(const nlohmann::json& message, const std::string& attachment_id);

}  // namespace agentworks::cli::mcp
