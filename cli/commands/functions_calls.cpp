// agentworks functions calls [--crew NAME] [--limit N] [--before CURSOR]: the recent calls this login may see,
// newest first (the calls its account made and the calls of its own Crews).
#include <iostream>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "functions/describe.hpp"
#include "functions/routes.hpp"
#include "session.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class FunctionsCalls final : public Command {
 public:
  void define(Options& options) override {
    options.option("--crew", crew_, "Only the calls of this Crew (a name, or a crw_ id)");
    options.option("--limit", limit_, "At most this many calls (1-100, default 20)");
    options.option("--before", before_, "Older calls: the next_cursor (or the --before hint) of the previous page");
  }

  json run(const Context& ctx) override {
    const std::string path = functions::call_list_path(crew_, limit_, before_);  // range checks before the login
    Config config = require_login(ctx);
    return client_for(config).get(path);
  }

  void print(const json& list) const override { std::cout << functions::describe_call_list(list); }

 private:
  std::optional<std::string> crew_;
  std::optional<long long> limit_;
  std::optional<std::string> before_;
};

}  // namespace

std::unique_ptr<Command> make_functions_calls() { return std::make_unique<FunctionsCalls>(); }

}  // namespace agentworks::cli
