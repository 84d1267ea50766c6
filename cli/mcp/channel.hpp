// The Claude channel of `agentworks mcp serve --claude-channel` (docs/mcp.md "Claude channel", R-C3): a background
// thread keeps one long-poll `channel_take` parked in the bridge, answered as soon as a message for this chat is
// cached (release-checked and persisted as offered BEFORE the answer, so an id is never offered twice, across
// reconnects and restarts; R-B5), and pushes each as
// notifications/claude/channel. An emitted notification is not an admission: the agent's ack sets the receipt
// (R-C4). A crash between the bridge's answer and the emission leaves the message readable, not re-offered.
#pragma once

#include <chrono>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "mcp/caller_identity.hpp"
#include "mcp/jsonrpc.hpp"
#include "mcp/long_poll_loop.hpp"

namespace agentworks::cli::mcp {

class ChannelPump {
 public:
  ChannelPump(LineWriter& writer, CallerIdentity caller);

  // Starts the thread (once; later calls do nothing).
  void start() { loop_.start(); }

 private:
  // One parked take and its notifications; returns how long to wait before the next.
  std::chrono::milliseconds take_once(int cancel_fd);

  LineWriter& writer_;
  CallerIdentity caller_;
  LongPollLoop loop_;  // last: stopped before the rest goes
};

// The notification params for one Message: {content, meta:{message_id, sender, inbox_id, attachment_id}}.
nlohmann::json channel_params(const nlohmann::json& message, const std::string& attachment_id);

}  // namespace agentworks::cli::mcp
