// agentworks daemon status: whether the bridge runs (ping) and a summary of its `status`. Not running is an
// error: unreachable, exit 6.
#include <iostream>
#include <nlohmann/json.hpp>

#include "agentworks/bridge_client.hpp"
#include "agentworks/local_protocol.hpp"
#include "command.hpp"
#include "embedded/bridge_control.hpp"
#include "output.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class DaemonStatus final : public Command {
 public:
  void define(Options& /*options*/) override {}

  json run(const Context& /*ctx*/) override {
    const json ping = bridge_client::call(json{{"op", local_protocol::op::ping}}, std::chrono::seconds(3));
    const json status = bridge_client::call(json{{"op", local_protocol::op::status}}, std::chrono::seconds(5));
    const json& attachments = status.contains("attachments") ? status["attachments"] : json::array();
    int attached = 0;
    for (const auto& a : attachments) {
      if (a.value("state", std::string()) == "attached") ++attached;
    }
    return json{{"running", true},
                {"pid", ping.value("pid", 0)},
                {"version", ping.value("version", std::string())},
                {"protocol", status.value("protocol", 0)},
                {"socket", bridge_client::socket_path().string()},
                {"state_dir", status.value("state_dir", std::string())},
                {"log", bridge_log_path().string()},
                {"attachments", attachments.size()},
                {"attached", attached},
                {"outbox_queued", status.value("outbox_queued", 0)},
                {"cached_body_bytes", status.value("cached_body_bytes", 0)},
                {"runners", status.value("runners", json::array())}};
  }

  void print(const json& r) const override {
    std::cout << "bridge:      running (pid " << r.value("pid", 0) << ", version " << text_or(r, "version") << ")\n"
              << "socket:      " << text_or(r, "socket") << "\n"
              << "state:       " << text_or(r, "state_dir") << "\n"
              << "log:         " << text_or(r, "log") << "\n"
              << "attachments: " << r.value("attachments", 0) << " (" << r.value("attached", 0) << " attached)\n"
              << "outbox:      " << r.value("outbox_queued", 0) << " queued\n";
    // The Crews this computer serves (R-R1), each by its runner.
    for (const json& runner : r.value("runners", json::array())) {
      const int pid = runner.value("pid", 0);
      std::cout << "serving:     Crew " << text_or(runner, "crew_name") << ", runner "
                << (pid > 0 ? "pid " + std::to_string(pid) : std::string("not running (starting again)"))
                << (runner.value("restarts", 0) > 0 ? ", restarted " + std::to_string(runner.value("restarts", 0)) + "x"
                                                    : std::string())
                << "\n";
    }
  }
};

}  // namespace

std::unique_ptr<Command> make_daemon_status() { return std::make_unique<DaemonStatus>(); }

}  // namespace agentworks::cli
