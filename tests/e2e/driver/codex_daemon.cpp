#include "driver/codex_daemon.hpp"

#include <signal.h>

#include <fstream>
#include <sstream>
#include <string>

#include "driver/agent_env.hpp"

namespace agentworks::e2e {
namespace fs = std::filesystem;
namespace {

// Processes whose executable lies under `home` (the daemon runs a copy of Codex from there) and whose command
// line contains `marker` ("" = all).
void kill_from_home(const std::string& home, const std::string& marker) {
  std::error_code walk;
  for (fs::directory_iterator entry("/proc", walk), end; !walk && entry != end; entry.increment(walk)) {
    const std::string pid = entry->path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::error_code exe_ec;
    const auto exe = fs::read_symlink(entry->path() / "exe", exe_ec).string();
    if (exe_ec || exe.rfind(home, 0) != 0) continue;
    std::ifstream cmd(entry->path() / "cmdline", std::ios::binary);
    std::stringstream text;
    text << cmd.rdbuf();
    if (marker.empty() || text.str().find(marker) != std::string::npos) ::kill(std::stoi(pid), SIGKILL);
  }
}

}  // namespace

void stop_codex_daemon(const testing::EnvOverrides& env, const fs::path& project) {
  const auto it = env.find("CODEX_HOME");
  if (it == env.end() || !it->second) return;
  const std::string home = *it->second + "/";
  kill_from_home(home, "pid-update-loop");
  run_codex(env, project, {"app-server", "daemon", "stop"}, std::chrono::seconds(30));
  kill_from_home(home, "");
}

}  // namespace agentworks::e2e
