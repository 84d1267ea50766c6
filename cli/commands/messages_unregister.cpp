// agentworks messages unregister --agent NAME
#include <iostream>
#include <nlohmann/json.hpp>

#include "agentworks/server_client.hpp"
#include "checks.hpp"
#include "command.hpp"
#include "output.hpp"
#include "session.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class MessagesUnregister final : public Command {
 public:
  void define(Options& options) override {
    options.option("--agent", agent_, "Registered name to remove").required();
  }

  json run(const Context& ctx) override {
    check_agent_name(agent_);
    Config config = require_login(ctx);
    return client_for(config).del("/v1/agents/" + url_encode(agent_));
  }

  void print(const json& result) const override {
    std::cout << "removed agent " << text_or(result, "agent_name", agent_) << "\n";
  }

 private:
  std::string agent_;
};

}  // namespace

std::unique_ptr<Command> make_messages_unregister() { return std::make_unique<MessagesUnregister>(); }

}  // namespace agentworks::cli
