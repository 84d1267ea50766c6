#include "commands/bridge_message_base.hpp"

#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "agentworks/error.hpp"
#include "agentworks/providers.hpp"
#include "agentworks/validation.hpp"
#include "mcp/caller_identity.hpp"
#include "mcp/messaging.hpp"

namespace agentworks::cli {

using nlohmann::json;

void BridgeMessageCommand::define_provider(Options& options) {
  options.option("--provider", provider_, "The agent CLI whose attached chat this runs in: claude, codex, cursor or pi")
      .required();
}

void BridgeMessageCommand::define_submission_id(Options& options) {
  options.option("--submission-id", submission_id_,
                 "Your id for this request (1-200 printable ASCII) so a retry is never stored twice; without it one "
                 "is made and printed: pass that one to retry");
}

void BridgeMessageCommand::add_submission_id(json& fields) const {
  if (submission_id_.empty()) return;
  check_submission_id(submission_id_, "--submission-id");
  fields["submission_id"] = submission_id_;
}

json BridgeMessageCommand::call(json fields) const {
  const auto caller = mcp::current_caller(provider_);
  std::optional<std::string> thread;
  if (is_provider(provider_, Provider::codex)) {
    const char* env = std::getenv("CODEX_THREAD_ID");
    if (env == nullptr || env[0] == '\0') {
      throw Error(ErrorCode::usage,
                  "CODEX_THREAD_ID is not set: run this from a Codex shell tool of the attached chat (Codex sets it)");
    }
    thread = mcp::checked_thread_id(env, "CODEX_THREAD_ID");
  }
  json answer = mcp::call_messaging_op(op_, std::move(fields), caller, thread);
  answer.erase("ok");
  answer.erase("id");
  return answer;
}

void BridgeMessageCommand::print(const json& result) const { std::cout << mcp::describe_answer(op_, result) << "\n"; }

std::string message_text_option(const std::string& given) {
  std::string text = given;
  if (given == "-") {
    text.clear();
    std::string line;
    for (bool first = true; std::getline(std::cin, line); first = false) text += (first ? "" : "\n") + line;
  }
  if (!valid_message_text(text)) {
    throw Error(ErrorCode::invalid_message, std::string("the ") + kMessageRule);
  }
  return text;
}

}  // namespace agentworks::cli
