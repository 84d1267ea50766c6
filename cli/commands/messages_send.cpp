// agentworks messages send [--agent NAME] (--target agent:NAME|crew:NAME | --inbox ID) --message TEXT|-
//                          [--submission-id ID]
// crew:NAME talks to the Crew's own agent (R-K1): the server starts or continues that conversation, and the Crew's
// agent answers in it when it chooses.
#include <iostream>
#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "checks.hpp"
#include "command.hpp"
#include "commands/message_sending.hpp"
#include "session.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class MessagesSend final : public Command {
 public:
  void define(Options& options) override {
    options.option("--agent", send_.agent_name, "Speak as this named agent (default: as this connection)");
    auto target = options.option("--target", send_.target,
                                 "Recipient, agent:NAME or crew:NAME (a Crew's own agent); starts or continues a "
                                 "conversation");
    auto inbox = options.option("--inbox", send_.inbox_id, "Conversation inbox id to send into (e.g. to reply)");
    target.excludes(inbox);
    options.option("--message", send_.message, "Message text, or - to read it from stdin").required();
    options.option("--submission-id", send_.submission_id, "Client id that makes a retried send idempotent");
  }

  json run(const Context& ctx) override {
    if (send_.target.empty() == send_.inbox_id.empty()) {
      throw Error(ErrorCode::usage, "give exactly one of --target agent:NAME, --target crew:NAME or --inbox INBOX_ID");
    }
    const json body = message_body(send_);
    Config config = require_login(ctx);
    return client_for(config).post("/v1/messages", body);
  }

  void print(const json& receipt) const override { std::cout << describe_receipt(receipt, send_.agent_name); }

 private:
  MessageToSend send_;
};

}  // namespace

std::unique_ptr<Command> make_messages_send() { return std::make_unique<MessagesSend>(); }

}  // namespace agentworks::cli
