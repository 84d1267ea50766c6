// agentworks bridge message ack --provider P --message-id ID --delivery admitted|processed [--submission-id ID]
#include <nlohmann/json.hpp>

#include "agentworks/local_protocol.hpp"
#include "commands/bridge_message_base.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class BridgeMessageAck final : public BridgeMessageCommand {
 public:
  BridgeMessageAck() : BridgeMessageCommand(std::string(local_protocol::op::ack)) {}
  void define(Options& options) override {
    define_provider(options);
    options.option("--message-id", message_id_, "The message to acknowledge (msg_...)").required();
    options.option("--delivery", delivery_, "admitted (it reached you) or processed (you handled it)")
        .required()
        .one_of({"admitted", "processed"});
    define_submission_id(options);
  }
  json run(const Context& /*ctx*/) override {
    json fields = {{"message_id", message_id_}, {"delivery", delivery_}, {"via", "agent"}};
    add_submission_id(fields);
    return call(std::move(fields));
  }

 private:
  std::string message_id_;
  std::string delivery_;
};

}  // namespace

std::unique_ptr<Command> make_bridge_message_ack() { return std::make_unique<BridgeMessageAck>(); }

}  // namespace agentworks::cli
