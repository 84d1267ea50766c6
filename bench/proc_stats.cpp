#include "proc_stats.hpp"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace agentworks::bench {

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

std::optional<double> cpu_seconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return std::nullopt;
  // Fields after the parenthesised command name: state is field 3, utime 14, stime 15.
  const std::size_t close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(close + 2));
  std::string field;
  unsigned long long utime = 0;
  unsigned long long stime = 0;
  for (int index = 3; index <= 15 && fields >> field; ++index) {
    if (index == 14) utime = std::stoull(field);
    if (index == 15) stime = std::stoull(field);
  }
  const long ticks = ::sysconf(_SC_CLK_TCK);
  if (ticks <= 0) return std::nullopt;
  return static_cast<double>(utime + stime) / static_cast<double>(ticks);
}

}  // namespace agentworks::bench
