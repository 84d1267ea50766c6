#include "agentworks/process_ancestry.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <charconv>

namespace agentworks::process {

namespace {

bool parse_long(std::string_view s, long& out) {
  if (s.empty()) return false;
  const auto* end = s.data() + s.size();
  const auto r = std::from_chars(s.data(), end, out);
  return r.ec == std::errc() && r.ptr == end;
}

}  // namespace

std::optional<ProcessInfo> parse_stat(std::string_view text) {
  // "PID (COMM) STATE PPID ...": comm is whatever lies between the first '(' and the LAST ')'.
  const auto open = text.find('(');
  const auto close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open || open == 0) {
    return std::nullopt;
  }
  ProcessInfo info;
  std::string_view pid_text = text.substr(0, open);
  while (!pid_text.empty() && pid_text.back() == ' ') pid_text.remove_suffix(1);
  if (!parse_long(pid_text, info.pid)) return std::nullopt;
  info.comm = std::string(text.substr(open + 1, close - open - 1));
  // Fields after comm, numbered from 3 (state).
  std::string_view rest = text.substr(close + 1);
  int field = 2;
  std::size_t pos = 0;
  while (pos < rest.size()) {
    while (pos < rest.size() && rest[pos] == ' ') ++pos;
    if (pos >= rest.size()) break;
    std::size_t end = rest.find(' ', pos);
    if (end == std::string_view::npos) end = rest.size();
    const auto token = rest.substr(pos, end - pos);
    ++field;
    if (field == 4 && !parse_long(token, info.ppid)) return std::nullopt;
    if (field == 22) {
      long start = 0;
      if (!parse_long(token, start)) return std::nullopt;
      info.start = std::string(token);
      return info;
    }
    pos = end;
  }
  return std::nullopt;
}

std::optional<ProcessInfo> read_process(long pid) {
  if (pid <= 0) return std::nullopt;
  // Plain read(2): the hook is tiny and this runs on its hot path.
  const std::string path = "/proc/" + std::to_string(pid) + "/stat";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::array<char, 1024> buf{};
  const ssize_t n = ::read(fd, buf.data(), buf.size());
  ::close(fd);
  if (n <= 0) return std::nullopt;
  return parse_stat(std::string_view(buf.data(), static_cast<std::size_t>(n)));
}

std::optional<ProcessKey> key_of(long pid) {
  const auto info = read_process(pid);
  if (!info) return std::nullopt;
  return ProcessKey{info->pid, info->start};
}

bool is_intermediate(std::string_view comm) {
  static constexpr std::array<std::string_view, 12> kNames = {"sh",   "bash",    "dash",  "zsh",
                                                               "fish", "env",     "nice",  "nohup",
                                                               "timeout", "stdbuf", "ksh", "agentworks-hoo"};
  for (const auto n : kNames) {
    if (comm == n) return true;
  }
  return false;
}

std::optional<ProcessKey> provider_ancestor() {
  long pid = static_cast<long>(getppid());
  for (int step = 0; step < 16 && pid > 1; ++step) {
    const auto info = read_process(pid);
    if (!info) return std::nullopt;
    if (!is_intermediate(info->comm)) return ProcessKey{info->pid, info->start};
    pid = info->ppid;
  }
  return std::nullopt;
}

}  // namespace agentworks::process
