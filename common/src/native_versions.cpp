#include "agentworks/native_versions.hpp"

#include <array>

namespace agentworks::native_versions {
namespace {

using Version = std::array<long, 3>;

constexpr Version kClaudeFirstKnown{2, 1, 332};
constexpr Version kClaudeFirstUnknown{2, 2, 0};
constexpr Version kCodexFirstKnown{0, 171, 0};
constexpr Version kCodexFirstUnknown{0, 172, 0};
constexpr Version kPiFirstKnown{0, 73, 0};
constexpr Version kPiFirstUnknown{0, 74, 0};

// Parses exactly "X.Y.Z" (digits only, each part 1 to `max_digits` digits).
std::optional<Version> parse_version(std::string_view v, std::size_t max_digits) {
  Version parts{};
  std::size_t i = 0;
  for (std::size_t part = 0; part < 3; ++part) {
    if (part > 0) {
      if (i >= v.size() || v[i] != '.') return std::nullopt;
      ++i;
    }
    const std::size_t start = i;
    long value = 0;
    while (i < v.size() && v[i] >= '0' && v[i] <= '9') {
      if (i - start >= max_digits) return std::nullopt;
      value = value * 10 + (v[i] - '0');
      ++i;
    }
    if (i == start) return std::nullopt;
    parts[part] = value;
  }
  if (i != v.size()) return std::nullopt;
  return parts;
}

bool in_range(std::optional<Version> v, const Version& first, const Version& first_unknown) {
  return v && *v >= first && *v < first_unknown;
}

}  // namespace

bool claude_inbox_known(std::string_view version) {
  return in_range(parse_version(version, 9), kClaudeFirstKnown, kClaudeFirstUnknown);
}

bool codex_queue_known(std::string_view version) {
  return in_range(parse_version(version, 6), kCodexFirstKnown, kCodexFirstUnknown);
}

bool pi_steer_known(std::string_view version) {
  return in_range(parse_version(version, 6), kPiFirstKnown, kPiFirstUnknown);
}

std::optional<std::string> parse_codex_version_line(std::string_view output) {
  constexpr std::string_view prefix = "codex-cli ";
  if (output.substr(0, prefix.size()) != prefix) return std::nullopt;
  std::string_view rest = output.substr(prefix.size());
  if (!rest.empty() && rest.back() == '\n') rest.remove_suffix(1);
  if (!rest.empty() && rest.back() == '\r') rest.remove_suffix(1);
  if (!parse_version(rest, 6)) return std::nullopt;
  return std::string(rest);
}

std::optional<std::string> parse_claude_version_line(std::string_view output) {
  const std::string_view line = output.substr(0, output.find('\n'));
  std::size_t pos = 0;
  while (pos < line.size()) {
    const std::size_t end = std::min(line.find(' ', pos), line.size());
    const std::string_view word = line.substr(pos, end - pos);
    if (parse_version(word, 9)) return std::string(word);
    pos = end + 1;
  }
  return std::nullopt;
}

}  // namespace agentworks::native_versions
