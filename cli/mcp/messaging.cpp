#include "mcp/messaging.hpp"

#include <chrono>
#include <sstream>

#include <nlohmann/json.hpp>

#include "agentworks/bridge_client.hpp"
#include "agentworks/error.hpp"

namespace agentworks::cli::mcp {

using nlohmann::json;

namespace {

std::string str(const json& j, const char* key, const std::string& fallback = "") {
  if (!j.is_object()) return fallback;
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

std::string sender_of(const json& m) {
  const json sender = m.is_object() ? m.value("sender", json::object()) : json::object();
  const auto name = str(sender, "agent_name");
  return name.empty() ? "a person (" + str(sender, "connection_id", "unknown connection") + ")" : name;
}

// "queued" answers: the server was unreachable; the bridge retries (R-B2).
std::string queued_text(const json& answer) {
  return "Queued (the server cannot be reached right now); the bridge sends it automatically, oldest first. "
         "submission_id " +
         str(answer, "submission_id", "?") + ".";
}

std::string read_text(const json& a) {
  std::ostringstream out;
  const json messages = a.value("messages", json::array());
  out << "Mailbox of " << str(a, "agent_name", "?") << ": " << messages.size() << " message"
      << (messages.size() == 1 ? "" : "s");
  if (a.value("filtered", 0) > 0) out << " (" << a.value("filtered", 0) << " withheld: not releasable to this chat)";
  out << ".\n";
  for (const auto& m : messages) {
    const json delivery = m.value("delivery", json::object());
    out << "\n[" << str(m, "cursor") << "] from " << sender_of(m) << ", message_id " << str(m, "message_id")
        << ", inbox " << str(m, "reply_address", str(m, "inbox_id")) << ", delivery " << str(delivery, "state", "?")
        << "\n"
        << str(m, "message") << "\n";
  }
  out << "\nnext_cursor: " << str(a, "next_cursor", "0")
      << " (pass it as `after` to read on; reply with agent_message_reply and the message_id or inbox).";
  return out.str();
}

std::string peers_text(const json& a) {
  std::ostringstream out;
  const json peers = a.value("peers", json::array());
  out << "You are " << str(a, "agent_name", "?") << ". Other agents of this account: " << peers.size() << ".";
  for (const auto& p : peers) {
    out << "\n- " << str(p, "agent_name") << (p.value("connected", false) ? " (connected)" : " (not connected)");
    const auto purpose = str(p, "purpose");
    if (!purpose.empty()) out << ": " << purpose;
  }
  if (!peers.empty()) out << "\nSend with agent_message_send(target=\"agent:NAME\", message=...).";
  return out.str();
}

}  // namespace

json call_messaging_op(const std::string& op, json fields, const CallerIdentity& caller,
                       const std::optional<std::string>& thread_id) {
  json request = fields.is_object() ? std::move(fields) : json::object();
  request["op"] = op;
  add_session_selector(request, caller, thread_id);
  // Outbox ops answer after the first attempt, which may wait for the server's own timeout.
  return bridge_client::call(request, std::chrono::seconds(30));
}

std::string describe_answer(const std::string& op, const json& answer) {
  if (op == "read") return read_text(answer);
  if (op == "peers") return peers_text(answer);
  if (answer.value("queued", false)) return queued_text(answer);
  const json server = answer.value("answer", json::object());
  if (op == "ack") {
    const json delivery = server.value("delivery", json::object());
    return "Receipt recorded: message " + str(server, "message_id", "?") + " is " + str(delivery, "state", "?") + ".";
  }
  const std::string what = op == "reply" ? "Reply" : "Message";
  return what + " stored by the server (message_id " + str(server, "message_id", "?") + ", inbox " +
         str(server, "inbox_id", "?") +
         "). This is a receipt, not an answer: an answer arrives as a new message.";
}

std::string describe_error(const std::string& code, const std::string& message) {
  std::string text = message;
  if (code == "not_found" && text.find("attach") == std::string::npos) {
    text += " (if this chat is not attached, ask the person to attach it with `/agentworks attach`)";
  }
  return "agentworks: " + text + " [" + code + "]";
}

}  // namespace agentworks::cli::mcp
