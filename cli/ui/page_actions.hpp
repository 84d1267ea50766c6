// What the page shows and does, through the same bridge ops as the terminal (docs/protocol.md, "Local socket
// protocol"): the state (status + activity), detach, cleanup, and one message's text on request. Errors come back
// as agentworks Errors with their stable codes; the page shows their messages.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace agentworks::cli::ui {

class PageActions {
 public:
  explicit PageActions(std::filesystem::path config_path) : config_path_(std::move(config_path)) {}

  // {"bridge":{running,pid,version,problem?}, "attachments":[…], "outbox_queued", "deliveries":[…], "outbox":[…],
  // "calls":{"calls":[CallSummary…], "conversations":[a Crew conversation… with crew_name]} or {"problem"}} as compact
  // JSON text. Never throws: a bridge or server that
  // does not answer is a state too. Called from the watcher's thread only (it keeps the calls' cache).
  std::string state();
  nlohmann::json detach(const nlohmann::json& request) const;  // {provider, session_id}
  nlohmann::json cleanup() const;
  // {message_id}: {"source":"bridge"|"server","message":Message}. The bridge's cached body while the message is
  // pending; once offered, the one message at its mailbox position read from the server with the person's login.
  nlohmann::json reveal(const nlohmann::json& request) const;

 private:
  // The recent function calls and the Crews' conversations come from the server, not the bridge: asked at most
  // every kCallsPeriod.
  static constexpr std::chrono::seconds kCallsPeriod{3};
  std::string calls();
  // A chat whose stream is down (offline) has its waiting messages on the server: they are counted there (the
  // bridge's status with server_counts) at most every kCountsPeriod, and the page shows that count and its source
  // instead of the bridge's 0 (attachment_id -> {pending, pending_source, pending_more?}).
  static constexpr std::chrono::seconds kCountsPeriod{5};
  void overlay_server_counts(nlohmann::json& attachments);

  std::filesystem::path config_path_;
  std::string calls_json_;
  std::chrono::steady_clock::time_point calls_at_{};
  std::string server_counts_json_ = "{}";
  std::chrono::steady_clock::time_point counts_at_{};
};

}  // namespace agentworks::cli::ui
