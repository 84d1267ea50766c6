// agentworks crews ask NAME --message TEXT|- [--agent NAME] [--submission-id ID]: talks to the Crew's own agent
// (R-K1), the same send as `messages send --target crew:NAME`. The answer is the Receipt, never a reply: the
// Crew's agent answers in the conversation when and if it chooses, read with `messages read --inbox`.
#include <iostream>
#include <nlohmann/json.hpp>

#include "checks.hpp"
#include "command.hpp"
#include "commands/message_sending.hpp"
#include "output.hpp"
#include "session.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class CrewsAsk final : public Command {
 public:
  void define(Options& options) override {
    options.option("name", crew_, "The Crew whose agent you talk to (its .agentworks/crew.json declares one)")
        .required();
    options.option("--message", send_.message, "Message text, or - to read it from stdin").required();
    options.option("--agent", send_.agent_name, "Speak as this named agent (default: as this connection)");
    options.option("--submission-id", send_.submission_id, "Client id that makes a retried send idempotent");
  }

  json run(const Context& ctx) override {
    check_crew_name(crew_);
    send_.target = "crew:" + crew_;
    const json body = message_body(send_);
    Config config = require_login(ctx);
    return client_for(config).post("/v1/messages", body);
  }

  void print(const json& receipt) const override {
    std::cout << describe_receipt(receipt, send_.agent_name);
    std::cout << "  crew " << crew_ << "'s agent answers there when and if it chooses; say more with: agentworks "
              << "messages send" << (send_.agent_name ? " --agent " + *send_.agent_name : std::string())
              << " --inbox " << text_or(receipt, "inbox_id") << " --message TEXT\n";
  }

 private:
  std::string crew_;
  MessageToSend send_;
};

}  // namespace

std::unique_ptr<Command> make_crews_ask() { return std::make_unique<CrewsAsk>(); }

}  // namespace agentworks::cli
