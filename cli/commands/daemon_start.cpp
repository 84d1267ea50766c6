// agentworks daemon start: start agentworks-bridge (idempotent: a running bridge is reported, not doubled).
#include <iostream>
#include <nlohmann/json.hpp>

#include "agentworks/bridge_client.hpp"
#include "command.hpp"
#include "embedded/bridge_control.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class DaemonStart final : public Command {
 public:
  void define(Options& /*options*/) override {}

  json run(const Context& /*ctx*/) override {
    const BridgeStart started = start_bridge();
    return json{{"started", !started.already_running},
                {"already_running", started.already_running},
                {"pid", started.pid},
                {"socket", bridge_client::socket_path().string()},
                {"log", bridge_log_path().string()}};
  }

  void print(const json& r) const override {
    std::cout << (r.value("already_running", false) ? "agentworks bridge already running (pid "
                                                     : "agentworks bridge started (pid ")
              << r.value("pid", 0) << ")\n";
  }
};

}  // namespace

std::unique_ptr<Command> make_daemon_start() { return std::make_unique<DaemonStart>(); }

}  // namespace agentworks::cli
