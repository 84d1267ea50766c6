// agentworks down: stop the bridge first (it holds streams to the server), then the embedded server (SIGTERM,
// up to 10 s, then SIGKILL) and forget its record.
// The saved login stays, so `agentworks up` brings everything back.
#include <iostream>
#include <nlohmann/json.hpp>

#include "agentworks/paths.hpp"
#include "agentworks/private_file.hpp"
#include "command.hpp"
#include "embedded/bridge_control.hpp"
#include "embedded/process.hpp"
#include "embedded/server_record.hpp"
#include "output.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class Down final : public Command {
 public:
  void define(Options& /*options*/) override {}

  json run(const Context& /*ctx*/) override {
    const BridgeStop bridge = stop_bridge();
    const json bridge_json = {{"stopped", bridge.stopped}, {"pid", bridge.stopped ? json(bridge.pid) : json(nullptr)}};
    make_private_dirs(paths::server_data_dir());
    FileLock lock(paths::server_data_dir() / "up.lock");
    auto record = read_server_record();
    if (!record || !process_alive(record->pid) || !is_agentworks_server(record->pid)) {
      remove_server_record();
      return json{{"stopped", false}, {"pid", nullptr}, {"server_url", nullptr}, {"bridge", bridge_json}};
    }
    bool forced = stop_process(record->pid, std::chrono::seconds(10));
    remove_server_record();
    return json{{"stopped", true}, {"pid", record->pid}, {"server_url", record->url}, {"forced", forced}, {"bridge", bridge_json}};
  }

  void print(const json& r) const override {
    if (r.contains("bridge") && r["bridge"].value("stopped", false)) {
      std::cout << "stopped the agentworks bridge (pid " << r["bridge"]["pid"].get<long>() << ")\n";
    }
    if (!r.value("stopped", false)) {
      std::cout << "the embedded agentworks server is not running\n";
      return;
    }
    std::cout << "stopped the agentworks server at " << text_or(r, "server_url") << " (pid " << r.value("pid", 0)
              << (r.value("forced", false) ? ", killed after 10 s" : "") << ")\n";
  }
};

}  // namespace

std::unique_ptr<Command> make_down() { return std::make_unique<Down>(); }

}  // namespace agentworks::cli
