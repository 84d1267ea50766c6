// agentworks bridge message ack --provider P --message-id ID --delivery admitted|processed [--submission-id ID]
#include <CLI/CLI.hpp>

#include <nlohmann/json.hpp>

#include "commands/bridge_message_base.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class BridgeMessageAck final : public BridgeMessageCommand {
 public:
  BridgeMessageAck() : BridgeMessageCommand("ack") {}
  void define(CLI::App& app) override {
    define_provider(app);
    app.add_option("--message-id", message_id_, "The message to acknowledge (msg_...)")->required();
    app.add_option("--delivery", delivery_, "admitted (it reached you) or processed (you handled it)")
        ->required()
        ->check(CLI::IsMember({"admitted", "processed"}));
    define_submission_id(app);
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
