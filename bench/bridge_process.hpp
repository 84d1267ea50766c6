// A real agentworks-bridge for the benchmark, started in the foreground in a private temp HOME (HOME and every
// XDG base directory inside it, runtime directory 0700), dying with the benchmark (PR_SET_PDEATHSIG).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>

namespace agentworks::bench {

class BridgeProcess {
 public:
  // Creates the temp HOME under `parent` and writes the CLI config (the owner login) the attach op reads.
  BridgeProcess(std::string binary, const std::string& parent);
  ~BridgeProcess();
  BridgeProcess(const BridgeProcess&) = delete;
  BridgeProcess& operator=(const BridgeProcess&) = delete;

  bool write_config(const std::string& server_url, const std::string& token, std::string* error);
  // Starts the bridge and waits (up to `timeout`) until it answers ping with its own pid.
  bool start(std::chrono::milliseconds timeout, std::string* error);
  void stop();  // shutdown op, then SIGKILL after 10 s
  void remove_home();

  pid_t pid() const { return pid_; }
  const std::string& root() const { return root_; }
  std::string socket_path() const { return root_ + "/home/.local/state/agentworks/run/bridge.sock"; }
  std::string config_path() const { return root_ + "/cli-config.json"; }
  std::string journal_path() const { return root_ + "/state/agentworks/journal.db"; }

 private:
  std::string binary_;
  std::string root_;
  pid_t pid_ = -1;
  int runs_ = 0;
};

}  // namespace agentworks::bench
