// agentworks logout: forget the saved login. The token itself stays valid on the server.
#include <iostream>
#include <nlohmann/json.hpp>

#include "agentworks/config.hpp"
#include "command.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class Logout final : public Command {
 public:
  void define(Options& /*options*/) override {}

  json run(const Context& ctx) override {
    bool removed = remove_config(ctx.config_path);
    return json{{"logged_out", removed}, {"config", ctx.config_path.string()}};
  }

  void print(const json& r) const override {
    if (r.value("logged_out", false)) {
      std::cout << "logged out (removed " << r.value("config", std::string()) << ")\n";
    } else {
      std::cout << "not logged in; nothing to do\n";
    }
  }
};

}  // namespace

std::unique_ptr<Command> make_logout() { return std::make_unique<Logout>(); }

}  // namespace agentworks::cli
