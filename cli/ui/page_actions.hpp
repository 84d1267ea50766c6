// What the page shows and does, through the same bridge ops as the terminal (docs/protocol.md, "Local socket
// protocol"): the state (status + activity), detach, cleanup, and one message's text on request. Errors come back
// as agentworks Errors with their stable codes; the page shows their messages.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace agentworks::cli::ui {

class PageActions {
 public:
  explicit PageActions(std::filesystem::path config_path) : config_path_(std::move(config_path)) {}

  // {"bridge":{running,pid,version,problem?}, "attachments":[…], "outbox_queued", "deliveries":[…], "outbox":[…]}
  // as compact JSON text. Never throws: a bridge that does not answer is a state too.
  std::string state() const;
  nlohmann::json detach(const nlohmann::json& request) const;  // {provider, session_id}
  nlohmann::json cleanup() const;
  // {message_id}: {"source":"bridge"|"server","message":Message}. The bridge's cached body while the message is
  // pending; once offered, the one message at its mailbox position read from the server with the person's login.
  nlohmann::json reveal(const nlohmann::json& request) const;

 private:
  std::filesystem::path config_path_;
};

}  // namespace agentworks::cli::ui
