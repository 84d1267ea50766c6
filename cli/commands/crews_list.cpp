// agentworks crews list: this account's Crews.
#include <iostream>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "functions/describe.hpp"
#include "session.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class CrewsList final : public Command {
 public:
  void define(Options& /*options*/) override {}

  json run(const Context& ctx) override {
    Config config = require_login(ctx);
    return client_for(config).get("/v1/crews");
  }

  void print(const json& list) const override { std::cout << functions::describe_crews(list); }
};

}  // namespace

std::unique_ptr<Command> make_crews_list() { return std::make_unique<CrewsList>(); }

}  // namespace agentworks::cli
