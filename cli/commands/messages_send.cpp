// agentworks messages send [--agent NAME] (--target agent:NAME | --inbox ID) --message TEXT|- [--submission-id ID]
#include <iostream>
#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "agentworks/validation.hpp"
#include "checks.hpp"
#include "command.hpp"
#include "output.hpp"
#include "session.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class MessagesSend final : public Command {
 public:
  void define(Options& options) override {
    options.option("--agent", agent_, "Speak as this named agent (default: as this connection)");
    auto target = options.option("--target", target_, "Recipient, agent:NAME (starts or continues a conversation)");
    auto inbox = options.option("--inbox", inbox_, "Conversation inbox id to send into (e.g. to reply)");
    target.excludes(inbox);
    options.option("--message", message_, "Message text, or - to read it from stdin").required();
    options.option("--submission-id", submission_id_, "Client id that makes a retried send idempotent");
  }

  json run(const Context& ctx) override {
    if (target_.empty() == inbox_.empty()) {
      throw Error(ErrorCode::usage, "give exactly one of --target agent:NAME or --inbox INBOX_ID");
    }
    json body;
    if (!target_.empty()) {
      // A bare name means agent:NAME; anything with a scheme goes to the server as given.
      std::string target = target_.find(':') == std::string::npos ? "agent:" + target_ : target_;
      if (target.rfind("agent:", 0) == 0) check_agent_name(std::string_view(target).substr(6));
      body["target"] = target;
    } else {
      body["inbox_id"] = inbox_;
    }
    if (agent_) {
      check_agent_name(*agent_);
      body["agent_name"] = *agent_;
    }
    if (submission_id_) {
      check_submission_id(*submission_id_, "--submission-id");
      body["submission_id"] = *submission_id_;
    }
    std::string text = message_argument(message_);
    check_message_text(text);
    body["message"] = text;
    Config config = require_login(ctx);
    return client_for(config).post("/v1/messages", body);
  }

  void print(const json& receipt) const override {
    std::cout << "accepted " << text_or(receipt, "message_id") << " (conversation "
              << text_or(receipt, "conversation_id") << ", inbox " << text_or(receipt, "inbox_id") << ")\n";
    std::cout << "  read replies with: agentworks messages read";
    if (agent_) std::cout << " --agent " << *agent_;
    std::cout << " --inbox " << text_or(receipt, "inbox_id") << " --after 0\n";
  }

 private:
  std::optional<std::string> agent_;
  std::string target_;
  std::string inbox_;
  std::string message_;
  std::optional<std::string> submission_id_;
};

}  // namespace

std::unique_ptr<Command> make_messages_send() { return std::make_unique<MessagesSend>(); }

}  // namespace agentworks::cli
