#include "mcp/channel.hpp"
#include "mcp/tool_args.hpp"

#include <chrono>

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

ChannelPump::ChannelPump(LineWriter& writer, CallerIdentity caller)
    : writer_(writer), caller_(std::move(caller)), loop_("channel", [this](int cancel_fd) { return take_once(cancel_fd); }) {}

milliseconds ChannelPump::take_once(int cancel_fd) {
  json request = {{"op", local_protocol::op::channel_take}, {"wait_ms", kChannelWait.count()}};
  add_session_selector(request, caller_, std::nullopt);
  const auto started = std::chrono::steady_clock::now();
  const json answer = bridge_client::call_cancellable(request, kChannelWait + kCallSlack, cancel_fd);
  const std::string attachment_id =
      answer.contains("attachment") ? string_field(answer["attachment"], "attachment_id") : std::string();
  bool any = false;
  for (const auto& m : answer.value("messages", json::array())) {
    if (!m.is_object()) continue;
    writer_.write(rpc_notification("notifications/claude/channel", channel_params(m, attachment_id)));
    any = true;
  }
  if (any || std::chrono::steady_clock::now() - started >= kChannelWait / 2) return LongPollLoop::kAtOnce;
  return LongPollLoop::kNoPark;
}

}  // namespace agentworks::cli::mcp
