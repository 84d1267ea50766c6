// agentworks down: stop the embedded server (SIGTERM, up to 10 s, then SIGKILL) and forget its record.
// The saved login stays, so `agentworks up` brings everything back.
#include <CLI/CLI.hpp>

#include <iostream>
#include <nlohmann/json.hpp>

#include "agentworks/paths.hpp"
#include "agentworks/private_file.hpp"
#include "command.hpp"
#include "embedded/process.hpp"
#include "embedded/server_record.hpp"
#include "output.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class Down final : public Command {
 public:
  void define(CLI::App& /*app*/) override {}

  json run(const Context& /*ctx*/) override {
    make_private_dirs(paths::server_data_dir());
    FileLock lock(paths::server_data_dir() / "up.lock");
    auto record = read_server_record();
    if (!record || !process_alive(record->pid) || !is_agentworks_server(record->pid)) {
      remove_server_record();
      return json{{"stopped", false}, {"pid", nullptr}, {"server_url", nullptr}};
    }
    // Later: stop agentworks-bridge here first, when `up` starts it.
    bool forced = stop_process(record->pid, std::chrono::seconds(10));
    remove_server_record();
    return json{{"stopped", true}, {"pid", record->pid}, {"server_url", record->url}, {"forced", forced}};
  }

  void print(const json& r) const override {
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
