// agentworks bridge message peers --provider P
#include <CLI/CLI.hpp>

#include <nlohmann/json.hpp>

#include "commands/bridge_message_base.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class BridgeMessagePeers final : public BridgeMessageCommand {
 public:
  BridgeMessagePeers() : BridgeMessageCommand("peers") {}
  void define(CLI::App& app) override { define_provider(app); }
  json run(const Context& /*ctx*/) override { return call(json::object()); }
};

}  // namespace

std::unique_ptr<Command> make_bridge_message_peers() { return std::make_unique<BridgeMessagePeers>(); }

}  // namespace agentworks::cli
