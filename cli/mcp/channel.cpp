#include "mcp/channel.hpp"

#include <chrono>
#include <iostream>

#include <nlohmann/json.hpp>

#include "agentworks/bridge_client.hpp"
#include "agentworks/error.hpp"
#include "agentworks/local_protocol.hpp"

namespace agentworks::cli::mcp {

using nlohmann::json;

namespace {

constexpr auto kPollInterval = std::chrono::milliseconds(200);
constexpr auto kIdleInterval = std::chrono::seconds(2);  // not attached yet, or no bridge

std::string text_field(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

json channel_params(const json& message, const std::string& attachment_id) {
  const json sender = message.contains("sender") && message["sender"].is_object() ? message["sender"] : json::object();
  std::string sender_name = text_field(sender, "agent_name");
  if (sender_name.empty()) sender_name = "person:" + text_field(sender, "connection_id");
  std::string inbox = text_field(message, "reply_address");
  if (inbox.empty()) inbox = text_field(message, "inbox_id");
  // Claude channel meta keys may hold only letters, digits and underscores.
  return {{"content", text_field(message, "message")},
          {"meta",
           {{"message_id", text_field(message, "message_id")},
            {"sender", sender_name},
            {"inbox_id", inbox},
            {"attachment_id", attachment_id}}}};
}

ChannelPump::~ChannelPump() {
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ChannelPump::start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] { run(); });
}

void ChannelPump::run() {
  while (true) {
    auto wait = kPollInterval;
    try {
      json request = {{"op", local_protocol::op::channel_take}};
      add_session_selector(request, caller_, std::nullopt);
      const json answer = bridge_client::call(request, std::chrono::seconds(10));
      const std::string attachment_id =
          answer.contains("attachment") ? text_field(answer["attachment"], "attachment_id") : std::string();
      for (const auto& m : answer.value("messages", json::array())) {
        if (!m.is_object()) continue;
        writer_.write(rpc_notification("notifications/claude/channel", channel_params(m, attachment_id)));
      }
    } catch (const Error&) {
      wait = std::chrono::duration_cast<std::chrono::milliseconds>(kIdleInterval);
    } catch (const std::exception& e) {
      std::cerr << "agentworks mcp: channel: " << e.what() << std::endl;
      wait = std::chrono::duration_cast<std::chrono::milliseconds>(kIdleInterval);
    }
    std::unique_lock lock(mutex_);
    if (wake_.wait_for(lock, wait, [this] { return stop_; })) return;
  }
}

}  // namespace agentworks::cli::mcp
