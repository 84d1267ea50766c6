// The real server and bridge a benchmark runs against, from the testing library (testing/): the server on
// 127.0.0.1:0 with its data under --data-parent, the bridge in a temp HOME there with the owner's login in its CLI
// config. Both are watched by the watchdog (bench_run.hpp) and die with the benchmark.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "testing/bridge_process.hpp"
#include "testing/process.hpp"
#include "testing/server_process.hpp"
#include "testing/temp_home.hpp"

namespace agentworks::bench {

// HOME and every XDG base directory inside `root` (the TempHome layout), none of the benchmark's own XDG_* or
// AGENTWORKS_* variables.
testing::EnvOverrides temp_home_env(const std::string& root);

// agentworks-server on 127.0.0.1:0 (testing::ServerProcess) with its data in a new directory under `parent`,
// removed on destruction unless AGENTWORKS_BENCH_KEEP_DATA is set.
class BenchServer {
 public:
  // Starts `binary --listen 127.0.0.1:0 --data <dir>/data ARGS`, waits for its URL and owner token; throws when it
  // does not come up within `timeout`. With `store_url` it runs on that PostgreSQL database (a replica); a replica
  // that is not the first on its store writes no owner token, so pass the first one's as `owner_token`.
  BenchServer(const std::string& binary, const std::vector<std::string>& args, const std::string& parent,
              std::chrono::milliseconds timeout, const std::string& store_url = "",
              const std::string& owner_token = "");
  BenchServer(const BenchServer&) = delete;
  BenchServer& operator=(const BenchServer&) = delete;
  ~BenchServer();

  void stop();  // SIGTERM, then SIGKILL

  pid_t pid() const { return process_->pid(); }
  std::uint16_t port() const { return port_; }
  const std::string& token() const { return token_; }
  const std::string& data_dir() const { return dir_; }

 private:
  std::string dir_;
  std::unique_ptr<testing::ServerProcess> process_;
  std::uint16_t port_ = 0;
  std::string token_;
  bool stopped_ = false;
};

class BenchBridge {
 public:
  // Creates the temp HOME under `parent`, writes the CLI config (the owner login) the attach op reads, starts the
  // bridge and waits until it answers ping. Throws when any step fails.
  BenchBridge(const std::string& binary, const std::string& parent, const std::string& server_url,
              const std::string& token, std::chrono::milliseconds timeout);
  BenchBridge(const BenchBridge&) = delete;
  BenchBridge& operator=(const BenchBridge&) = delete;
  ~BenchBridge();

  void stop();       // shutdown op, then SIGKILL
  void keep_home();  // leave the temp HOME (journal, bridge.log) for inspection

  pid_t pid() const { return process_ ? process_->pid() : -1; }
  std::string root() const { return home_->root().string(); }
  std::string socket_path() const { return home_->bridge_socket().string(); }
  std::string config_path() const { return root() + "/cli-config.json"; }

 private:
  std::unique_ptr<testing::TempHome> home_;
  std::unique_ptr<testing::BridgeProcess> process_;
};

}  // namespace agentworks::bench
