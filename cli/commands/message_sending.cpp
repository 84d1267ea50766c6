#include "commands/message_sending.hpp"

#include <nlohmann/json.hpp>

#include "agentworks/validation.hpp"
#include "checks.hpp"
#include "output.hpp"

namespace agentworks::cli {
using nlohmann::json;

json message_body(const MessageToSend& send) {
  json body;
  if (!send.target.empty()) {
    body["target"] = message_target(send.target);
  } else {
    body["inbox_id"] = send.inbox_id;
  }
  if (send.agent_name) {
    check_agent_name(*send.agent_name);
    body["agent_name"] = *send.agent_name;
  }
  if (send.submission_id) {
    check_submission_id(*send.submission_id, "--submission-id");
    body["submission_id"] = *send.submission_id;
  }
  std::string text = message_argument(send.message);
  check_message_text(text);
  body["message"] = text;
  return body;
}

std::string describe_receipt(const json& receipt, const std::optional<std::string>& agent_name) {
  std::string out = "accepted " + text_or(receipt, "message_id") + " (conversation " +
                    text_or(receipt, "conversation_id") + ", inbox " + text_or(receipt, "inbox_id") + ")\n";
  out += "  read replies with: agentworks messages read";
  if (agent_name) out += " --agent " + *agent_name;
  out += " --inbox " + text_or(receipt, "inbox_id") + " --after 0\n";
  return out;
}

}  // namespace agentworks::cli
