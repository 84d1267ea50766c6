#include "bench_run.hpp"

#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>

#include "testing/process.hpp"

namespace agentworks::bench {
namespace {

std::array<std::atomic<pid_t>, 4> g_watched{};  // lock-free: read from the signal handler
std::atomic<const char*> g_program{"agentworks-bench"};

void on_watchdog(int) {
  kill_watched();
  const char* program = g_program.load();
  static const char tail[] = ": watchdog expired, killing what it started and exiting\n";
  [[maybe_unused]] auto n = ::write(STDERR_FILENO, program, std::strlen(program));
  n = ::write(STDERR_FILENO, tail, sizeof tail - 1);
  ::_exit(3);
}

}  // namespace

void arm_watchdog(const char* program, unsigned seconds) {
  testing::set_children_die_with_parent(true);  // a crashed run leaves nothing behind either
  g_program = program;
  std::signal(SIGALRM, on_watchdog);
  ::alarm(seconds);
}

int run_with_watchdog(const char* program, unsigned seconds, const std::function<int()>& run) {
  arm_watchdog(program, seconds);
  try {
    return run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", program, e.what());
    kill_watched();
    return 2;
  }
}

void watch_process(pid_t pid) {
  if (pid <= 0) return;
  for (auto& slot : g_watched) {
    if (slot.load() == pid) return;
  }
  for (auto& slot : g_watched) {
    pid_t empty = 0;
    if (slot.compare_exchange_strong(empty, pid)) return;
  }
}

void unwatch_process(pid_t pid) {
  for (auto& slot : g_watched) {
    pid_t expected = pid;
    slot.compare_exchange_strong(expected, 0);
  }
}

void kill_watched() {
  for (auto& slot : g_watched) {
    if (const pid_t pid = slot.load(); pid > 0) ::kill(pid, SIGKILL);
  }
}

std::string built_program(const std::string& dir, const std::string& name) {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return name;
  return (dir.empty() ? self.parent_path() / name : self.parent_path().parent_path() / dir / name).string();
}

std::vector<char*> exec_strings(std::vector<std::string>& owned) {
  std::vector<char*> out;
  out.reserve(owned.size() + 1);
  for (auto& s : owned) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace agentworks::bench
