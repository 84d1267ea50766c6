// agentworks bridge message send --provider P --target agent:NAME|crew:NAME --message TEXT [--submission-id ID]
// crew:NAME talks to a Crew's own agent (R-K1), as the chat's agent_message_send does.
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
    options
        .option("--target", target_, "agent:NAME (or NAME) of the receiving agent, or crew:NAME of a Crew's own agent")
        .required();
    options.option("--message", message_, "The message text ('-' reads it from stdin)").required();
    define_submission_id(options);
  }
  json run(const Context& /*ctx*/) override {
    const bool has_scheme = target_.rfind("agent:", 0) == 0 || target_.rfind("crew:", 0) == 0;
    const std::string target = has_scheme ? target_ : "agent:" + target_;
    if (!valid_message_target(target))
      throw Error(ErrorCode::usage, "--target must be agent:NAME or crew:NAME with a valid name");
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
