// agentworks crews stop-serving NAME: stops serving a Crew from its computer (R-R2): the server revokes the
// runner's connection and cancels the Crew's open calls, new calls answer `unavailable`; this computer forgets
// the runner's secret. `crews unregister` removes the Crew itself.
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

class CrewsStopServing final : public Command {
 public:
  void define(Options& options) override { options.option("name", name_, "Crew name (or crw_ id)").required(); }

  json run(const Context& ctx) override {
    Config config = require_login(ctx);
    json crew = client_for(config).post(functions::crew_path(name_) + "/stop-serving", json::object());
    forget_served_crew(crew.at("crew_name").get<std::string>());
    return crew;
  }

  void print(const json& crew) const override {
    std::cout << "stopped serving " << crew["crew_name"].get<std::string>() << "; "
              << crew["cancelled_calls"].size() << " open call(s) cancelled\n";
  }

 private:
  std::string name_;
};

}  // namespace

std::unique_ptr<Command> make_crews_stop_serving() { return std::make_unique<CrewsStopServing>(); }

}  // namespace agentworks::cli
