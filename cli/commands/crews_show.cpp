// agentworks crews show NAME: one Crew of this account with its declared functions and, when it declares an agent
// (R-K1), that agent, whether its messaging is on and its conversations (R-K2).
#include <iostream>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "functions/describe.hpp"
#include "functions/routes.hpp"
#include "session.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class CrewsShow final : public Command {
 public:
  void define(Options& options) override {
    options.option("name", name_, "Crew name (or crw_ id)").required();
  }

  json run(const Context& ctx) override {
    Config config = require_login(ctx);
    return client_for(config).get(functions::crew_path(name_));
  }

  void print(const json& crew) const override {
    std::cout << functions::describe_crew(crew);
    if (crew.contains("agent") && crew["agent"].is_object()) std::cout << functions::describe_conversations(crew);
  }

 private:
  std::string name_;
};

}  // namespace

std::unique_ptr<Command> make_crews_show() { return std::make_unique<CrewsShow>(); }

}  // namespace agentworks::cli
