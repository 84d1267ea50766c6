// agentworks crews set NAME --messaging on|off|file: the Crew's messaging switch (R-K3). off refuses every
// conversational message to the Crew (messaging_disabled), replies included; its functions are unaffected. file
// drops the server's setting, so the value in .agentworks/crew.json applies again.
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "agentworks/error.hpp"
#include "command.hpp"
#include "functions/describe.hpp"
#include "functions/routes.hpp"
#include "output.hpp"
#include "session.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class CrewsSet final : public Command {
 public:
  void define(Options& options) override {
    options.option("name", name_, "Crew name (or crw_ id)").required();
    options.option("--messaging", messaging_,
                   "on: the Crew's agent takes messages; off: every message to it is refused (messaging_disabled), "
                   "its functions stay; file: the value in .agentworks/crew.json");
  }

  json run(const Context& ctx) override {
    if (!messaging_) throw Error(ErrorCode::usage, "give --messaging on, off or file");
    json value;
    if (*messaging_ == "on") {
      value = true;
    } else if (*messaging_ == "off") {
      value = false;
    } else if (*messaging_ != "file") {
      throw Error(ErrorCode::usage, "--messaging takes on, off or file (the value in .agentworks/crew.json), not '" +
                                        *messaging_ + "'");
    }
    Config config = require_login(ctx);
    return client_for(config).post(functions::crew_path(name_) + "/messaging", json{{"messaging", value}});
  }

  void print(const json& crew) const override {
    std::cout << "crew " << text_or(crew, "crew_name", name_) << ": messaging " << functions::describe_messaging(crew)
              << "\n";
  }

 private:
  std::string name_;
  std::optional<std::string> messaging_;
};

}  // namespace

std::unique_ptr<Command> make_crews_set() { return std::make_unique<CrewsSet>(); }

}  // namespace agentworks::cli
