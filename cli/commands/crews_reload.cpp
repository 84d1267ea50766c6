// agentworks crews reload NAME: reads the Crew's .agentworks/functions.json again (a Crew this computer serves:
// here, and sends it); a refused file (invalid_declaration, with the line and the reason) leaves the previous
// declaration in force.
#include <iostream>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "functions/describe.hpp"
#include "functions/routes.hpp"
#include "serving/served_crews.hpp"
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
    // A Crew this computer serves (R-R1): its files are read here and sent; the server never reads that folder.
    json body = json::object();
    if (const auto served = load_served_crew(name_)) body = sent_declaration(served->dir, served->crew_name);
    return client_for(config).post(functions::crew_path(name_) + "/reload", body);
  }

  void print(const json& crew) const override { std::cout << "reloaded " << functions::describe_crew(crew); }

 private:
  std::string name_;
};

}  // namespace

std::unique_ptr<Command> make_crews_reload() { return std::make_unique<CrewsReload>(); }

}  // namespace agentworks::cli
