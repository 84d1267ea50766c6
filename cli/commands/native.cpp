// agentworks native on|off|status: the person's global switch for native push (Claude Code's session inbox,
// Codex's queue) into attached chats, kept as "native" in the saved login (docs/native-routes.md). The bridge
// reads it whenever it binds a route: attached chats follow at their next hook event, `/agentworks resume` or a
// bridge restart. Per chat: `/agentworks attach NAME "PURPOSE" --no-native`.
#include <iostream>
#include <nlohmann/json.hpp>

#include "agentworks/config.hpp"
#include "agentworks/error.hpp"
#include "command.hpp"
#include "session.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class Native final : public Command {
 public:
  void define(Options& options) override {
    options.option("setting", setting_, "on, off, or status (the default)")
        .one_of({"on", "off", "status"});
  }

  json run(const Context& ctx) override {
    Config config = require_login(ctx);
    if (setting_ != "status") {
      config.native = setting_ == "on";
      save_config(ctx.config_path, config);
    }
    return json{{"native", config.native}, {"config", ctx.config_path.string()}};
  }

  void print(const json& r) const override {
    if (r.value("native", true)) {
      std::cout << "native push is on: attached Claude Code and Codex chats get messages at once when they can\n";
    } else {
      std::cout << "native push is off: attached chats get messages at the end of each turn\n";
    }
  }

 private:
  std::string setting_ = "status";
};

}  // namespace

std::unique_ptr<Command> make_native() { return std::make_unique<Native>(); }

}  // namespace agentworks::cli
