// A real agentworks-bridge in the foreground of a TempHome, as systemd would run it. Destruction SIGKILLs it.
#pragma once

#include <chrono>
#include <string>

#include "testing/process.hpp"

namespace agentworks::testing {

class TempHome;

class BridgeProcess {
 public:
  // `binary` empty: bridge_binary().
  explicit BridgeProcess(const TempHome& home, EnvOverrides extra = {}, std::string binary = {});
  BridgeProcess(const BridgeProcess&) = delete;
  BridgeProcess& operator=(const BridgeProcess&) = delete;
  ~BridgeProcess();

  // Starts it and waits until it answers ping with its own pid; throws when it does not within `timeout`.
  void start(std::chrono::milliseconds timeout = std::chrono::seconds(20));
  // Clean stop through the socket; returns the exit code.
  int stop();
  int kill();
  Child& child() { return child_; }
  pid_t pid() const { return child_.pid(); }
  // The bridge's own log file (state home agentworks/bridge.log).
  std::string log() const;

 private:
  const TempHome& home_;
  EnvOverrides extra_;
  std::string binary_;
  Child child_;
  int runs_ = 0;
};

}  // namespace agentworks::testing
