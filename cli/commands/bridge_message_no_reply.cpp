// agentworks bridge message no-reply --provider P [--message-id ID] [--reason TEXT] [--submission-id ID]
// Without --message-id: every message this chat was handed and has not marked processed (R-X2).
#include <nlohmann/json.hpp>

#include "agentworks/local_protocol.hpp"
#include "commands/bridge_message_base.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class BridgeMessageNoReply final : public BridgeMessageCommand {
 public:
  BridgeMessageNoReply() : BridgeMessageCommand(std::string(local_protocol::op::no_reply)) {}
  void define(Options& options) override {
    define_provider(options);
    options.option("--message-id", message_id_, "The message you decline to answer (msg_...); omit for all you were handed");
    options.option("--reason", reason_, "Why, for your own record (at most 500 characters); never sent");
    define_submission_id(options);
  }
  json run(const Context& /*ctx*/) override {
    json fields = json::object();
    if (!message_id_.empty()) fields["message_id"] = message_id_;
    if (!reason_.empty()) fields["reason"] = reason_;
    add_submission_id(fields);
    return call(std::move(fields));
  }

 private:
  std::string message_id_;
  std::string reason_;
};

}  // namespace

std::unique_ptr<Command> make_bridge_message_no_reply() { return std::make_unique<BridgeMessageNoReply>(); }

}  // namespace agentworks::cli
