#include "mcp/channel.hpp"
#include "mcp/tool_args.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <iostream>

#include <nlohmann/json.hpp>

#include "agentworks/bridge_client.hpp"
#include "agentworks/error.hpp"
#include "agentworks/local_protocol.hpp"

namespace agentworks::cli::mcp {

using nlohmann::json;

namespace {

using std::chrono::milliseconds;

// The bridge parks the take until a message is cached for this chat (or the wait passes): no polling.
constexpr milliseconds kChannelWait{25000};
constexpr milliseconds kCallSlack{10000};  // the bridge's release check is a server round trip
// An empty answer well before the wait means nothing could park (a bridge older than wait_ms, or this chat is
// offline): ask again after this, not at once.
constexpr milliseconds kNoParkInterval{200};
constexpr milliseconds kIdleInterval{2000};  // not attached yet, or no bridge

}  // namespace

json channel_params(const json& message, const std::string& attachment_id) {
  const json sender = message.contains("sender") && message["sender"].is_object() ? message["sender"] : json::object();
  std::string sender_name = string_field(sender, "agent_name");
  if (sender_name.empty()) sender_name = "person:" + string_field(sender, "connection_id");
  std::string inbox = string_field(message, "reply_address");
  if (inbox.empty()) inbox = string_field(message, "inbox_id");
  // Claude channel meta keys may hold only letters, digits and underscores.
  return {{"content", string_field(message, "message")},
          {"meta",
           {{"message_id", string_field(message, "message_id")},
            {"sender", sender_name},
            {"inbox_id", inbox},
            {"attachment_id", attachment_id}}}};
}

ChannelPump::ChannelPump(LineWriter& writer, CallerIdentity caller) : writer_(writer), caller_(std::move(caller)) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
    throw Error(ErrorCode::internal, std::string("cannot create the channel's stop pipe: ") + std::strerror(errno));
  }
  stop_read_ = UniqueFd(fds[0]);
  stop_write_ = UniqueFd(fds[1]);
}

ChannelPump::~ChannelPump() {
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  // Ends a parked channel_take at once: the thread is usually inside one.
  [[maybe_unused]] const auto n = ::write(stop_write_.get(), "x", 1);
  if (thread_.joinable()) thread_.join();
}

void ChannelPump::start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] { run(); });
}

bool ChannelPump::stopping() {
  const std::lock_guard lock(mutex_);
  return stop_;
}

milliseconds ChannelPump::take_once() {
  json request = {{"op", local_protocol::op::channel_take}, {"wait_ms", kChannelWait.count()}};
  add_session_selector(request, caller_, std::nullopt);
  const auto started = std::chrono::steady_clock::now();
  const json answer = bridge_client::call_cancellable(request, kChannelWait + kCallSlack, stop_read_.get());
  const std::string attachment_id =
      answer.contains("attachment") ? string_field(answer["attachment"], "attachment_id") : std::string();
  bool any = false;
  for (const auto& m : answer.value("messages", json::array())) {
    if (!m.is_object()) continue;
    writer_.write(rpc_notification("notifications/claude/channel", channel_params(m, attachment_id)));
    any = true;
  }
  if (any || std::chrono::steady_clock::now() - started >= kChannelWait / 2) return milliseconds(0);
  return kNoParkInterval;
}

milliseconds ChannelPump::next_wait() {
  try {
    return take_once();
  } catch (const Error&) {
    return kIdleInterval;  // not attached yet, no bridge, or stopping
  } catch (const std::exception& e) {
    std::cerr << "agentworks mcp: channel: " << e.what() << std::endl;
    return kIdleInterval;
  }
}

void ChannelPump::run() {
  while (!stopping()) {
    const milliseconds wait = next_wait();
    if (wait.count() == 0) continue;
    std::unique_lock lock(mutex_);
    if (wake_.wait_for(lock, wait, [this] { return stop_; })) return;
  }
}

}  // namespace agentworks::cli::mcp
