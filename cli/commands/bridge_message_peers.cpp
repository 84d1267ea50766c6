// agentworks bridge message peers --provider P
#include <nlohmann/json.hpp>

#include "agentworks/local_protocol.hpp"
#include "commands/bridge_message_base.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class BridgeMessagePeers final : public BridgeMessageCommand {
 public:
  BridgeMessagePeers() : BridgeMessageCommand(std::string(local_protocol::op::peers)) {}
  void define(Options& options) override { define_provider(options); }
  json run(const Context& /*ctx*/) override { return call(json::object()); }
};

}  // namespace

std::unique_ptr<Command> make_bridge_message_peers() { return std::make_unique<BridgeMessagePeers>(); }

}  // namespace agentworks::cli
