// agentworks daemon logs [--lines N]: the tail of the bridge's log ($XDG_STATE_HOME/agentworks/bridge.log).
// The log never holds message bodies (invariant 8), so showing it is safe.
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "command.hpp"
#include "embedded/bridge_control.hpp"
#include "output.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class DaemonLogs final : public Command {
 public:
  void define(Options& options) override {
    options.option("--lines,-n", lines_, "How many of the last lines to show (default 50)");
  }

  json run(const Context& /*ctx*/) override {
    if (lines_ < 1 || lines_ > 100000) throw Error(ErrorCode::bad_request, "--lines must be 1-100000");
    const auto file = bridge_log_path();
    std::ifstream in(file);
    std::deque<std::string> last;
    for (std::string line; std::getline(in, line);) {
      last.push_back(line);
      if (last.size() > static_cast<std::size_t>(lines_)) last.pop_front();
    }
    json lines = json::array();
    for (auto& l : last) lines.push_back(std::move(l));
    json result = json::object();
    result["log"] = file.string();
    result["exists"] = std::filesystem::exists(file);
    result["lines"] = std::move(lines);
    return result;
  }

  void print(const json& r) const override {
    if (!r.value("exists", false)) {
      std::cout << "no bridge log yet at " << text_or(r, "log") << "\n";
      return;
    }
    for (const auto& line : r.at("lines")) {
      if (line.is_string()) std::cout << line.get_ref<const std::string&>() << "\n";
    }
  }

 private:
  int lines_ = 50;
};

}  // namespace

std::unique_ptr<Command> make_daemon_logs() { return std::make_unique<DaemonLogs>(); }

}  // namespace agentworks::cli
