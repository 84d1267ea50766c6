// agentworks bridge message send --provider P --target agent:NAME --message TEXT [--submission-id ID]
#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "agentworks/local_protocol.hpp"
#include "agentworks/validation.hpp"
#include "commands/bridge_message_base.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class BridgeMessageSend final : public BridgeMessageCommand {
 public:
  BridgeMessageSend() : BridgeMessageCommand(std::string(local_protocol::op::send)) {}
  void define(Options& options) override {
    define_provider(options);
    options.option("--target", target_, "agent:NAME (or NAME) of the receiving agent").required();
    options.option("--message", message_, "The message text ('-' reads it from stdin)").required();
    define_submission_id(options);
  }
  json run(const Context& /*ctx*/) override {
    std::string target = target_.rfind("agent:", 0) == 0 ? target_ : "agent:" + target_;
    if (!valid_agent_name(target.substr(6))) throw Error(ErrorCode::usage, "--target must be agent:NAME");
    json fields = {{"target", target}, {"message", message_text_option(message_)}};
    add_submission_id(fields);
    return call(std::move(fields));
  }

 private:
  std::string target_;
  std::string message_;
};

}  // namespace

std::unique_ptr<Command> make_bridge_message_send() { return std::make_unique<BridgeMessageSend>(); }

}  // namespace agentworks::cli
