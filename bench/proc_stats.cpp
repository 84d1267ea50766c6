#include "proc_stats.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace agentworks::bench {

namespace {

// The fields of a /proc stat file, numbered as in proc(5) from field 3 (state) on: out[0] is field 3. The command
// name (field 2) may hold spaces and parentheses, so the fields start after the last ')'.
std::optional<std::vector<std::string>> stat_fields(const std::string& path) {
  std::ifstream in(path);
  std::string stat;
  if (!std::getline(in, stat)) return std::nullopt;
  const std::size_t close = stat.rfind(')');
  if (close == std::string::npos || close + 2 > stat.size()) return std::nullopt;
  std::istringstream fields(stat.substr(close + 2));
  std::vector<std::string> out;
  for (std::string field; fields >> field;) out.push_back(field);
  if (out.size() < 15) return std::nullopt;  // through field 17, cstime
  return out;
}

unsigned long long field(const std::vector<std::string>& fields, int number) {
  return std::stoull(fields[static_cast<std::size_t>(number - 3)]);
}

std::optional<double> seconds_of(unsigned long long ticks_used) {
  const long ticks = ::sysconf(_SC_CLK_TCK);
  if (ticks <= 0) return std::nullopt;
  return static_cast<double>(ticks_used) / static_cast<double>(ticks);
}

// utime (14) + stime (15), and with `children` cutime (16) + cstime (17).
std::optional<double> stat_cpu(const std::string& path, bool children) {
  const auto f = stat_fields(path);
  if (!f) return std::nullopt;
  unsigned long long used = field(*f, 14) + field(*f, 15);
  if (children) used += field(*f, 16) + field(*f, 17);
  return seconds_of(used);
}

}  // namespace

std::optional<std::uint64_t> rss_kib(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) {
      std::istringstream fields(line.substr(6));
      std::uint64_t kib = 0;
      if (fields >> kib) return kib;
    }
  }
  return std::nullopt;
}

std::optional<double> cpu_seconds(pid_t pid) { return stat_cpu("/proc/" + std::to_string(pid) + "/stat", false); }

std::optional<double> thread_cpu_seconds(pid_t pid, pid_t tid) {
  return stat_cpu("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/stat", false);
}

std::optional<double> process_tree_cpu_seconds(pid_t root) {
  auto total = stat_cpu("/proc/" + std::to_string(root) + "/stat", true);
  if (!total) return std::nullopt;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const auto f = stat_fields(entry.path().string() + "/stat");
    if (!f || std::stoll((*f)[1]) != root) continue;  // field 4: the parent
    if (const auto child = seconds_of(field(*f, 14) + field(*f, 15))) *total += *child;
  }
  return total;
}

}  // namespace agentworks::bench
