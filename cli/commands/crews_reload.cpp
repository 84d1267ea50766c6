// agentworks crews reload NAME: reads the Crew's .agentworks/functions.json again; a refused file
// (invalid_declaration, with the line and the reason) leaves the previous declaration in force.
#include <iostream>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "functions/describe.hpp"
#include "functions/routes.hpp"
#include "session.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class CrewsReload final : public Command {
 public:
  void define(Options& options) override {
    options.option("name", name_, "Crew name (or crw_ id)").required();
  }

  json run(const Context& ctx) override {
    Config config = require_login(ctx);
    return client_for(config).post(functions::crew_path(name_) + "/reload", json::object());
  }

  void print(const json& crew) const override { std::cout << "reloaded " << functions::describe_crew(crew); }

 private:
  std::string name_;
};

}  // namespace

std::unique_ptr<Command> make_crews_reload() { return std::make_unique<CrewsReload>(); }

}  // namespace agentworks::cli
