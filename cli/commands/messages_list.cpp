// agentworks messages list: the account's named agents.
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "output.hpp"
#include "session.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class MessagesList final : public Command {
 public:
  void define(Options& /*options*/) override {}

  json run(const Context& ctx) override {
    Config config = require_login(ctx);
    return client_for(config).get("/v1/agents");
  }

  void print(const json& result) const override {
    const json& agents = result.at("agents");
    if (agents.empty()) {
      std::cout << "no registered agents; register one with: agentworks messages register --agent NAME\n";
      return;
    }
    for (const json& a : agents) {
      bool connected = a.value("connected", false);
      std::cout << std::left << std::setw(24) << text_or(a, "agent_name") << ' ' << std::setw(10)
                << (connected ? "connected" : "offline") << ' ' << std::setw(8) << text_or(a, "provider", "")
                << ' ' << text_or(a, "purpose", "") << '\n';
    }
  }
};

}  // namespace

std::unique_ptr<Command> make_messages_list() { return std::make_unique<MessagesList>(); }

}  // namespace agentworks::cli
