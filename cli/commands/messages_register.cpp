// agentworks messages register --agent NAME [--allow-connection ID]... [--purpose TEXT] [--provider NAME]
//   [--communication explicit|direct]
#include <iostream>
#include <nlohmann/json.hpp>

#include "checks.hpp"
#include "command.hpp"
#include "output.hpp"
#include "session.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class MessagesRegister final : public Command {
 public:
  void define(Options& options) override {
    options.option("--agent", agent_, "Name to register (1-64 letters, digits, '.', '_', '-')").required();
    options.option("--allow-connection", allowed_,
                   "Connection id allowed to act for the name (repeatable; replaces the list; you are always in it)");
    options.option("--purpose", purpose_, "What this agent is for, shown to other agents");
    options.option("--provider", provider_, "Agent provider, e.g. claude, codex, cursor");
    options
        .option("--communication", communication_,
                "How its chat talks (R-X1): explicit (only the message tools speak, the default) or direct")
        .one_of({"explicit", "direct"});
  }

  json run(const Context& ctx) override {
    check_agent_name(agent_);
    json body = {{"agent_name", agent_}};
    if (purpose_) body["purpose"] = *purpose_;
    if (provider_) body["provider"] = *provider_;
    if (communication_) body["communication"] = *communication_;
    if (!allowed_.empty()) body["allowed_connection_ids"] = allowed_;
    Config config = require_login(ctx);
    ServerClient client = client_for(config);
    json agent = client.post("/v1/agents", body);
    created_ = client.last_status() == 201;
    return agent;
  }

  void print(const json& agent) const override {
    std::cout << (created_ ? "registered" : "updated") << " agent " << text_or(agent, "agent_name") << " ("
              << text_or(agent, "agent_id") << ")\n";
    std::cout << "  others send to it with: agentworks messages send --target agent:"
              << text_or(agent, "agent_name") << " --message TEXT\n";
    std::cout << "  read its mailbox with:  agentworks messages read --agent " << text_or(agent, "agent_name")
              << " --after 0 --wait 25\n";
  }

 private:
  std::string agent_;
  std::vector<std::string> allowed_;
  std::optional<std::string> purpose_;
  std::optional<std::string> provider_;
  std::optional<std::string> communication_;
  bool created_ = false;
};

}  // namespace

std::unique_ptr<Command> make_messages_register() { return std::make_unique<MessagesRegister>(); }

}  // namespace agentworks::cli
