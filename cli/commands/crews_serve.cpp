// agentworks crews serve NAME: runs the runner of a Crew this computer serves (R-R1) in the foreground until
// SIGTERM / Ctrl-C, or until the server ends the serving (`crews stop-serving`, or the Crew served elsewhere).
#include <iostream>
#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "command.hpp"
#include "serving/crew_runner.hpp"
#include "serving/served_crews.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class CrewsServe final : public Command {
 public:
  void define(Options& options) override {
    options.option("name", name_, "A Crew registered from this computer with --serve-here").required();
  }

  json run(const Context&) override {
    const auto crew = load_served_crew(name_);
    if (!crew)
      throw Error(ErrorCode::not_found, "this computer does not serve a Crew '" + name_ +
                                            "'; register it here with `agentworks crews register " + name_ +
                                            " --dir PATH --serve-here`");
    const RunnerEnd end = serve_crew(*crew, runner_config_for(*crew));
    exit_code_ = end.exit_code;
    return json{{"crew_name", crew->crew_name}, {"crew_id", crew->crew_id}, {"stopped", end.reason}};
  }

  void print(const json& result) const override {
    std::cout << "stopped serving " << result["crew_name"].get<std::string>() << ": "
              << result["stopped"].get<std::string>() << "\n";
  }
  int exit_status(const json&) const override { return exit_code_; }

 private:
  std::string name_;
  int exit_code_ = 0;
};

}  // namespace

std::unique_ptr<Command> make_crews_serve() { return std::make_unique<CrewsServe>(); }

}  // namespace agentworks::cli
