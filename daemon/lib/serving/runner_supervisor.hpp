// The runners of the Crews this computer serves (R-R1, docs/decisions/0009-crew-runners.md): the bridge keeps one
// `agentworks crews serve NAME` running per record in the served-Crews folder (paths::served_crews_dir()). The
// folder is read when the bridge starts and every few seconds after, off the loop; a runner that dies is started
// again after a pause that grows with each failure; one that the server ended (exit 3: serving stopped, or moved to
// another computer) waits for its record to change; a runner whose record left is stopped. Each runner's output
// goes to a log of its own beside the bridge's. The executions run in the runner, never on the bridge's loop.
#pragma once

#include <uv.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace agentworks::bridge {

struct RunnerState {
  std::string crew_name;
  int pid = 0;          // 0 while not running
  int restarts = 0;
  int last_exit = -1;   // the last exit code (-1: none yet, or ended by a signal)
};

class RunnerSupervisor {
 public:
  // `cli`: the agentworks program; `served_dir`: where the records are; `log_dir`: the runners' logs.
  RunnerSupervisor(uv_loop_t* loop, std::string cli, std::filesystem::path served_dir, std::filesystem::path log_dir);
  ~RunnerSupervisor();
  RunnerSupervisor(const RunnerSupervisor&) = delete;
  RunnerSupervisor& operator=(const RunnerSupervisor&) = delete;

  void start();
  // SIGTERM to every runner; nothing is started again.
  void stop();
  std::vector<RunnerState> states() const;

  struct Runner;

 private:
  void scan();
  void scanned(std::vector<std::string> names);
  void spawn(Runner& r);
  void exited(Runner& r, std::int64_t status, int signal);

  uv_loop_t* loop_;
  std::string cli_;
  std::filesystem::path served_dir_;
  std::filesystem::path log_dir_;
  uv_timer_t* scan_timer_ = nullptr;
  bool scanning_ = false;
  bool stopped_ = false;
  std::map<std::string, std::unique_ptr<Runner>> runners_;  // by record name
};

// The agentworks program beside the bridge: AGENTWORKS_CLI_BIN, else beside this executable, else the build tree's
// cli/ folder; "" when there is none (no runner is started, and the log says why).
std::string find_cli_beside(const std::string& self_dir);

}  // namespace agentworks::bridge
