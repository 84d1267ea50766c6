// agentworks crews unregister NAME: removes the Crew (refused with busy while one of its calls runs); the folder
// and its files stay.
#include <iostream>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "functions/routes.hpp"
#include "output.hpp"
#include "serving/served_crews.hpp"
#include "session.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class CrewsUnregister final : public Command {
 public:
  void define(Options& options) override {
    options.option("name", name_, "Crew name (or crw_ id)").required();
  }

  json run(const Context& ctx) override {
    Config config = require_login(ctx);
    json removed = client_for(config).del(functions::crew_path(name_));
    // A Crew this computer served: its runner's secret goes too, so the bridge stops serving it.
    forget_served_crew(removed.value("crew_name", name_));
    return removed;
  }

  void print(const json& result) const override {
    std::cout << "unregistered crew " << text_or(result, "crew_name", name_) << " (its folder is left as it is)\n";
  }

 private:
  std::string name_;
};

}  // namespace

std::unique_ptr<Command> make_crews_unregister() { return std::make_unique<CrewsUnregister>(); }

}  // namespace agentworks::cli
