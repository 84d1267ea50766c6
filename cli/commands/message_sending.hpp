// What `messages send` and `crews ask` share: the checked body of POST /v1/messages and the text of its Receipt,
// so a message to an agent and one to a Crew's agent are sent and told the same way.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace agentworks::cli {

struct MessageToSend {
  std::string target;    // agent:NAME, crew:NAME or NAME; empty when `inbox_id` is given
  std::string inbox_id;  // empty when `target` is given
  std::optional<std::string> agent_name;  // speak as this named agent
  std::optional<std::string> submission_id;
  std::string message;  // the --message value: the text, or "-" for stdin
};

// The body of POST /v1/messages; every field checked before anything is sent (Error invalid_name, invalid_message,
// bad_request). Reads stdin for --message -.
nlohmann::json message_body(const MessageToSend& send);

// "accepted MSG (conversation CNV, inbox INB)" and the `messages read` command that reads the replies.
std::string describe_receipt(const nlohmann::json& receipt, const std::optional<std::string>& agent_name);

}  // namespace agentworks::cli
