// agentworks functions list --crew NAME: the functions of a Crew that this login may call.
#include <iostream>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "functions/describe.hpp"
#include "functions/routes.hpp"
#include "functions/target.hpp"
#include "session.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class FunctionsList final : public Command {
 public:
  void define(Options& options) override {
    options.option("--crew", crew_, "Crew name (yours) or crw_ id (another account's)").required();
  }

  json run(const Context& ctx) override {
    functions::FunctionsTarget target = functions::functions_target(ctx);
    return target.client.get(target.path(functions::crew_path(crew_) + "/functions"));
  }

  void print(const json& list) const override { std::cout << functions::describe_functions(list); }

 private:
  std::string crew_;
};

}  // namespace

std::unique_ptr<Command> make_functions_list() { return std::make_unique<FunctionsList>(); }

}  // namespace agentworks::cli
