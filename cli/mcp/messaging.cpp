#include "mcp/messaging.hpp"

#include <chrono>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "agentworks/bridge_client.hpp"
#include "agentworks/error.hpp"
#include "agentworks/local_protocol.hpp"
#include "agentworks/random.hpp"
#include "agentworks/utc_time.hpp"
#include "functions/describe.hpp"

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

// Per attempt: the bridge answers an outbox op within seconds (docs/protocol.md "Outbox answers"); a reply by
// message id may first wait for a one-message server lookup (15 s at most).
constexpr std::chrono::seconds kBridgeTimeout{25};
// Before the one retry of a request that got no answer or met a full backlog.
constexpr std::chrono::milliseconds kRetryPause{300};

// "queued" answers: journaled by the bridge, which sends it later (R-B2); the note says why it is not sent yet.
std::string queued_text(const json& answer) {
  const auto note = str(answer, "note", "the bridge sends it automatically, oldest first");
  return "Queued, not sent yet: " + note + ". submission_id " + str(answer, "submission_id", "?") +
         " (to retry this call, pass the same submission_id: it is never stored twice).";
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

std::string wakeup_line(const json& w) {
  const json due = w.value("due_at", json());
  return str(w, "wakeup_id", "?") + " " + str(w, "state", "?") + ", due " +
         (due.is_number_integer() ? utc_text(due.get<std::int64_t>()) : std::string("?")) + ": " + str(w, "note");
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

bool is_outbox_op(const std::string& op) {
  return op == local_protocol::op::ack || op == local_protocol::op::no_reply || op == local_protocol::op::reply ||
         op == local_protocol::op::send;
}

namespace {
// A function call goes through the outbox too (R-D1), so it gets its id here like a send.
bool through_outbox(const std::string& op, const json& fields) {
  return is_outbox_op(op) || (op == local_protocol::op::function && fields.is_object() &&
                              fields.value("action", "") == "call");
}
}  // namespace

std::string ensure_submission_id(const std::string& op, json& fields) {
  if (!through_outbox(op, fields)) return {};
  if (!fields.is_object()) fields = json::object();
  if (const auto it = fields.find("submission_id"); it != fields.end() && it->is_string()) return it->get<std::string>();
  const std::string id = new_id("sub");
  fields["submission_id"] = id;
  return id;
}

json send_with_retry(const std::string& op, const json& request, const BridgeSend& send) {
  const bool outbox = through_outbox(op, request);
  for (int attempt = 0;; ++attempt) {
    try {
      return send(request);
    } catch (const Error& e) {
      const bool unknown_outcome = dynamic_cast<const bridge_client::NoAnswer*>(&e) != nullptr;
      if (!outbox || (!unknown_outcome && e.code() != ErrorCode::busy)) throw;
      if (attempt == 0) {
        std::this_thread::sleep_for(kRetryPause);
        continue;
      }
      // R-X6: say what is not known, what would double it, and what is safe.
      const std::string id = request.value("submission_id", "?");
      std::string text = std::string(e.what()) + ". Its outcome is unknown";
      if (op == local_protocol::op::send || op == local_protocol::op::reply)
        text += ": the message may already be visible to the recipient, and sending it again as a new message could "
                "double it. Check with agent_message_read (or the sender's receipt), or retry with the same "
                "submission_id " + id + ", which is always safe: it is never stored twice";
      else
        text += "; retrying with the same submission_id " + id + " is always safe: it is never done twice";
      throw Error(e.code(), text);
    }
  }
}

json call_messaging_op(const std::string& op, json fields, const CallerIdentity& caller,
                       const std::optional<std::string>& thread_id) {
  json request = fields.is_object() ? std::move(fields) : json::object();
  ensure_submission_id(op, request);
  request["op"] = op;
  add_session_selector(request, caller, thread_id);
  return send_with_retry(op, request, [](const json& r) { return bridge_client::call(r, kBridgeTimeout); });
}

std::string describe_function_answer(const json& a) {
  if (a.contains("functions") && a.contains("crew_name")) return functions::describe_functions(a);
  if (a.contains("cancel")) return functions::describe_cancel(a, functions::Surface::chat);
  if (a.value("answered", false))
    return "Answered " + str(a, "request_id", "?") + "; the call goes on (get_function_call call_id \"" +
           str(a, "call_id", "?") + "\").";
  return std::string(a.value("accepted", false) ? "Accepted. " : "") +
         functions::describe_call(a, functions::Surface::chat);
}

std::string describe_wakeup_answer(const json& a) {
  if (a.contains("wakeups")) {
    const json list = a.value("wakeups", json::array());
    std::string text = "Wakeups of " + str(a, "agent_name", "?") + ": " + std::to_string(list.size()) + ".";
    if (a.value("paused", false)) text += " The person has paused wakeups: due ones wait until resumed.";
    for (const auto& w : list) text += "\n- " + wakeup_line(w);
    return text;
  }
  if (str(a, "state") == "cancelled") return "Cancelled: " + wakeup_line(a) + ".";
  return "Scheduled: " + wakeup_line(a) + ". When it is due, a message starts a turn here; cancel it with "
         "cancel_message_wakeup(wakeup_id), move it with schedule_message_wakeup(wakeup_id, ...).";
}

std::string describe_answer(const std::string& op, const json& answer) {
  if (op == local_protocol::op::wakeup) return describe_wakeup_answer(answer.value("answer", json::object()));
  if (op == local_protocol::op::function && answer.value("queued", false))
    return queued_text(answer) + " Once made, its outcome arrives in this chat as a message.";
  if (op == local_protocol::op::function) return describe_function_answer(answer.value("answer", json::object()));
  if (op == local_protocol::op::read) return read_text(answer);
  if (op == local_protocol::op::peers) return peers_text(answer);
  if (answer.value("queued", false)) return queued_text(answer);
  const json server = answer.value("answer", json::object());
  if (op == local_protocol::op::ack) {
    const json delivery = server.value("delivery", json::object());
    return "Receipt recorded: message " + str(server, "message_id", "?") + " is " + str(delivery, "state", "?") +
           " (submission_id " + str(answer, "submission_id", "?") + ").";
  }
  const std::string what = op == local_protocol::op::reply ? "Reply" : "Message";
  return what + " stored by the server (message_id " + str(server, "message_id", "?") + ", inbox " +
         str(server, "inbox_id", "?") + ", submission_id " + str(answer, "submission_id", "?") +
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
