#include "hook_env.hpp"

#include <charconv>
#include <filesystem>
#include <string_view>
#include <system_error>

#include "agentworks/providers.hpp"

namespace agentworks::hook {

int max_continuations_from(const char* value) {
  if (value == nullptr) return kDefaultMaxContinuations;
  const std::string_view s(value);
  int n = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), n);
  if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size() || n < 0 || n > kMaxMaxContinuations) {
    return kDefaultMaxContinuations;
  }
  return n;
}

std::optional<std::string> config_from(const char* value) {
  if (value == nullptr || value[0] == '\0') return std::nullopt;
  std::error_code ec;
  const auto abs = std::filesystem::absolute(std::filesystem::path(value), ec);
  if (ec) return std::string(value);
  return abs.lexically_normal().string();
}

const char* provider_home_variable(std::string_view provider) {
  const auto known = provider_from_name(provider);
  return known ? provider_info(*known).home_variable : nullptr;
}

std::optional<std::string> provider_home_from(const char* value) {
  if (value == nullptr || value[0] != '/') return std::nullopt;
  return std::filesystem::path(value).lexically_normal().string();
}

}  // namespace agentworks::hook
