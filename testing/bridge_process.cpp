#include "testing/bridge_process.hpp"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <utility>

#include "testing/binaries.hpp"
#include "testing/bridge_client.hpp"
#include "testing/temp_home.hpp"
#include "testing/wait.hpp"

namespace agentworks::testing {

BridgeProcess::BridgeProcess(const TempHome& home, EnvOverrides extra, std::string binary)
    : home_(home), extra_(std::move(extra)), binary_(binary.empty() ? bridge_binary() : std::move(binary)) {}

BridgeProcess::~BridgeProcess() { child_.kill_and_wait(); }

void BridgeProcess::start(std::chrono::milliseconds timeout) {
  ++runs_;
  const auto dir = home_.path("bridge-logs");
  std::filesystem::create_directories(dir);
  EnvOverrides env = merge_env(home_.env(), extra_);
  child_ = Child::start({binary_, "--foreground"}, env, dir / ("out" + std::to_string(runs_)),
                        dir / ("err" + std::to_string(runs_)));
  const bool up = wait_until(
      [&] {
        const auto a = bridge_call(home_, {{"op", "ping"}});
        return a && a->value("pid", 0) == child_.pid();
      },
      timeout);
  if (!up) throw std::runtime_error("the bridge did not come up:\n" + child_.read_stderr());
}

int BridgeProcess::stop() {
  bridge_call(home_, {{"op", "shutdown"}});
  const auto code = child_.wait_exit(std::chrono::seconds(20));
  return code ? *code : child_.kill_and_wait();
}

int BridgeProcess::kill() { return child_.kill_and_wait(); }

std::string BridgeProcess::log() const { return read_file(home_.state_home() / "agentworks" / "bridge.log"); }

}  // namespace agentworks::testing
