// What `agentworks bridge message ack|reply|send|read|peers` share: --provider, the caller's exact attached
// session (its provider ancestor process; Codex adds CODEX_THREAD_ID, checked by the bridge against the stored
// provider process key, R-C7), one bridge op, and the same text the MCP tools give. They never create an
// attachment and never read the CLI login.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "command.hpp"

namespace agentworks::cli {

class BridgeMessageCommand : public Command {
 public:
  explicit BridgeMessageCommand(std::string op) : op_(std::move(op)) {}
  void print(const nlohmann::json& result) const override;

 protected:
  // Adds --provider (required) to the subcommand.
  void define_provider(Options& options);
  // Calls the bridge op with `fields` plus the session selector; returns its answer (without "ok"/"id"). An
  // ack, reply or send without --submission-id gets one minted for this invocation (mcp::call_messaging_op).
  nlohmann::json call(nlohmann::json fields) const;
  // --submission-id, when given, checked and copied into `fields`.
  void add_submission_id(nlohmann::json& fields) const;
  void define_submission_id(Options& options);

 private:
  std::string op_;
  std::string provider_;
  std::string submission_id_;
};

// --message TEXT, or the text from stdin when TEXT is "-".
std::string message_text_option(const std::string& given);

}  // namespace agentworks::cli
