#include "bench_rig.hpp"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "agentworks/config.hpp"
#include "bench_run.hpp"

namespace agentworks::bench {

testing::EnvOverrides temp_home_env(const std::string& root) {
  return testing::merge_env(
      testing::merge_env(testing::unset_inherited("XDG_"), testing::unset_inherited("AGENTWORKS_")),
      testing::home_env(root));
}

BenchServer::BenchServer(const std::string& binary, const std::vector<std::string>& args, const std::string& parent,
                         std::chrono::milliseconds timeout, const std::string& store_url,
                         const std::string& owner_token)
    : dir_(testing::make_temp_dir("agentworks-bench-", parent).string()) {
  testing::ServerOptions options;
  options.binary = binary;
  options.data_dir = dir_ + "/data";
  options.extra_args = args;
  options.start_timeout = timeout;
  options.store_url = store_url;
  std::filesystem::create_directories(options.data_dir);
  process_ = std::make_unique<testing::ServerProcess>(options);
  watch_process(pid());
  port_ = static_cast<std::uint16_t>(process_->port());
  token_ = owner_token.empty() ? process_->owner_token() : owner_token;
}

BenchServer::~BenchServer() {
  stop();
  process_.reset();
  if (std::getenv("AGENTWORKS_BENCH_KEEP_DATA") == nullptr) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
}

void BenchServer::stop() {
  if (stopped_) return;
  stopped_ = true;
  unwatch_process(pid());
  process_->stop();
}

BenchBridge::BenchBridge(const std::string& binary, const std::string& parent, const std::string& server_url,
                         const std::string& token, std::chrono::milliseconds timeout)
    : home_(std::make_unique<testing::TempHome>(parent, "aw-bb-")) {  // short: the socket path must fit sun_path
  Config c;
  c.server_url = server_url;
  c.token = token;
  c.kind = "login";
  save_config(config_path(), c);
  process_ = std::make_unique<testing::BridgeProcess>(*home_, temp_home_env(root()), binary);
  process_->start(timeout);
  watch_process(pid());
}

BenchBridge::~BenchBridge() { stop(); }

void BenchBridge::stop() {
  if (!process_) return;
  unwatch_process(pid());
  process_->stop();
  process_.reset();
}

void BenchBridge::keep_home() { home_->keep(); }

}  // namespace agentworks::bench
