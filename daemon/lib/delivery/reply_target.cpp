#include "delivery/reply_target.hpp"

#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "agentworks/sqlite.hpp"
#include "delivery/op_guard.hpp"
#include "delivery/server_call.hpp"
#include "services/server_calls.hpp"

namespace agentworks::bridge {

using nlohmann::json;

namespace {

Error retired(const std::string& message_id) {
  return Error(ErrorCode::not_found,
               "message " + message_id +
                   " is no longer in this chat's local record (delivered long ago or cleaned up); read the mailbox "
                   "(agent_message_read, or `agentworks bridge message read`) and reply with the message's inbox "
                   "(its reply_address) instead of its message id");
}

std::string inbox_of(const json& message) {
  if (!message.is_object()) return {};
  for (const char* field : {"reply_address", "inbox_id"}) {
    if (const auto it = message.find(field); it != message.end() && it->is_string()) return it->get<std::string>();
  }
  return {};
}

}  // namespace

void find_reply_inbox(ServerCalls& bridge, const AttachmentRow& row, const std::string& message_id, const Reply& reply,
                      std::function<void(const std::string& inbox_id)> then) {
  std::int64_t seq = 0;
  std::optional<std::string> body;
  {
    sql::Stmt s(bridge.journal().db(), "SELECT seq, body FROM messages WHERE message_id = ?1 AND attachment_id = ?2");
    s.bind(1, message_id).bind(2, row.attachment_id);
    if (!s.step()) throw retired(message_id);
    seq = s.int64(0);
    body = s.opt_text(1);
  }
  if (body) {
    const auto inbox = inbox_of(json::parse(*body, nullptr, false));
    if (!inbox.empty()) {
      then(inbox);
      return;
    }
  }
  // The offer cleared the body: the one message at its mailbox cursor names the conversation.
  const auto token = bridge.token_for(row);
  if (!token) {
    throw Error(ErrorCode::fenced, "this chat's agent has no stored child connection; attach this chat again");
  }
  const std::string after = seq > 1 ? "m" + std::to_string(seq - 1) : std::string("0");
  const std::string path = "/v1/messages?agent_name=" + row.agent_name + "&after=" + after + "&limit=1";
  call_server(bridge, "GET", row.server_url, path, *token, nullptr,
              [&bridge, reply, message_id, then = std::move(then)](const ServerAnswer& a) {
                guarded(bridge, reply, [&] {
                  if (a.error != nullptr) {
                    if (a.error->code() == ErrorCode::unreachable) {
                      throw Error(ErrorCode::unreachable,
                                  std::string(a.error->what()) +
                                      "; to queue the reply now, reply with the message's inbox (its reply_address)");
                    }
                    throw *a.error;
                  }
                  for (const auto& m : a.body->value("messages", json::array())) {
                    if (m.value("message_id", "") == message_id) {
                      const auto inbox = inbox_of(m);
                      if (!inbox.empty()) {
                        then(inbox);
                        return;
                      }
                    }
                  }
                  throw retired(message_id);
                });
              });
}

}  // namespace agentworks::bridge
