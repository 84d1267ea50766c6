// agentworks daemon stop: ask the bridge to shut down and wait until its socket stops answering.
#include <iostream>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "embedded/bridge_control.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class DaemonStop final : public Command {
 public:
  void define(Options& /*options*/) override {}

  json run(const Context& /*ctx*/) override {
    const BridgeStop stop = stop_bridge();
    return json{{"stopped", stop.stopped}, {"pid", stop.stopped ? json(stop.pid) : json(nullptr)}};
  }

  void print(const json& r) const override {
    if (!r.value("stopped", false)) {
      std::cout << "the agentworks bridge is not running\n";
      return;
    }
    std::cout << "stopped the agentworks bridge (pid " << r["pid"].get<long>() << ")\n";
  }
};

}  // namespace

std::unique_ptr<Command> make_daemon_stop() { return std::make_unique<DaemonStop>(); }

}  // namespace agentworks::cli
