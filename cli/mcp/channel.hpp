// The Claude channel of `agentworks mcp serve --claude-channel` (docs/mcp.md "Claude channel", R-C3): a background
// thread keeps one long-poll `channel_take` parked in the bridge, answered as soon as a message for this chat is
// cached (release-checked and persisted as offered BEFORE the answer, so an id is never offered twice, across
// reconnects and restarts; R-B5), and pushes each as
// notifications/claude/channel. An emitted notification is not an admission: the agent's ack sets the receipt
// (R-C4). A crash between the bridge's answer and the emission leaves the message readable, not re-offered.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include <nlohmann/json_fwd.hpp>

#include "agentworks/unique_fd.hpp"
#include "mcp/caller_identity.hpp"
#include "mcp/jsonrpc.hpp"

namespace agentworks::cli::mcp {

class ChannelPump {
 public:
  ChannelPump(LineWriter& writer, CallerIdentity caller);
  ~ChannelPump();
  ChannelPump(const ChannelPump&) = delete;
  ChannelPump& operator=(const ChannelPump&) = delete;

  // Starts the thread (once; later calls do nothing).
  void start();

 private:
  void run();
  bool stopping();
  // One parked take and its notifications; returns how long to wait before the next.
  std::chrono::milliseconds take_once();
  // take_once(), or the idle interval when the bridge could not be asked. Each outcome returns its own wait: the
  // earlier form (a default assigned from take_once() inside a try) read 0 after a throw in the release build,
  // and without a bridge the pump spun on connect().
  std::chrono::milliseconds next_wait();

  LineWriter& writer_;
  CallerIdentity caller_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  UniqueFd stop_read_;   // readable once the pump stops: cancels the parked take
  UniqueFd stop_write_;
};

// The notification params for one Message: {content, meta:{message_id, sender, inbox_id, attachment_id}}.
nlohmann::json channel_params(const nlohmann::json& message, const std::string& attachment_id);

}  // namespace agentworks::cli::mcp
