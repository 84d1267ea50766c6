// agentworks bridge message reply --provider P [--message-id ID | --inbox INBOX] --message TEXT [--submission-id ID]
// Neither address: the one conversation of the messages this chat was handed (R-X4).
#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "agentworks/local_protocol.hpp"
#include "commands/bridge_message_base.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class BridgeMessageReply final : public BridgeMessageCommand {
 public:
  BridgeMessageReply() : BridgeMessageCommand(std::string(local_protocol::op::reply)) {}
  void define(Options& options) override {
    define_provider(options);
    options.option("--message-id", message_id_, "The message you reply to (msg_...)");
    options.option("--inbox", inbox_, "The conversation inbox (inb_...) to reply into, instead of --message-id");
    options.option("--message", message_, "The reply text ('-' reads it from stdin)").required();
    define_submission_id(options);
  }
  json run(const Context& /*ctx*/) override {
    if (!message_id_.empty() && !inbox_.empty())
      throw Error(ErrorCode::usage, "give --message-id or --inbox, not both (or neither for the conversation of the "
                                    "messages this chat was handed)");
    json fields = {{"message", message_text_option(message_)}};
    if (!message_id_.empty()) fields["message_id"] = message_id_;
    if (!inbox_.empty()) fields["inbox_id"] = inbox_;
    add_submission_id(fields);
    return call(std::move(fields));
  }

 private:
  std::string message_id_;
  std::string inbox_;
  std::string message_;
};

}  // namespace

std::unique_ptr<Command> make_bridge_message_reply() { return std::make_unique<BridgeMessageReply>(); }

}  // namespace agentworks::cli
