#include "delivery/waiting_count.hpp"

#include <nlohmann/json.hpp>

#include "delivery/op_guard.hpp"
#include "delivery/server_call.hpp"
#include "services/server_calls.hpp"

namespace agentworks::bridge {

using nlohmann::json;

void count_waiting(ServerCalls& bridge, const AttachmentRow& row, const Reply& reply,
                   std::function<void(std::optional<WaitingCount>)> done, long timeout_ms) {
  const auto token = bridge.token_for(row);
  if (!token) {
    done(std::nullopt);
    return;
  }
  const std::int64_t local = bridge.journal().counts(row.attachment_id).pending;
  const auto mark = bridge.journal().watermark(row.server_url, row.agent_name);
  constexpr int kPage = 100;
  call_server(
      bridge, "GET", row.server_url,
      "/v1/messages?agent_name=" + row.agent_name + "&after=" + (mark > 0 ? "m" + std::to_string(mark) : "0") +
          "&limit=" + std::to_string(kPage),
      *token, nullptr,
      [&bridge, reply, local, done](const ServerAnswer& a) {
        guarded(bridge, reply, [&] {
          if (a.error != nullptr) {
            done(std::nullopt);
            return;
          }
          const auto messages = a.body->value("messages", json::array());
          WaitingCount w;
          w.count = local;
          for (const auto& m : messages) {
            if (m.is_object() && m.contains("delivery") && m["delivery"].is_object() &&
                m["delivery"].value("state", "") == "stored") {
              ++w.count;
            }
          }
          w.more = messages.size() >= static_cast<std::size_t>(kPage);
          done(w);
        });
      },
      timeout_ms);
}

}  // namespace agentworks::bridge
