#include "output.hpp"

#include <ctime>
#include <nlohmann/json.hpp>

namespace agentworks::cli {

std::string format_time(const nlohmann::json& unix_seconds) {
  if (!unix_seconds.is_number_integer()) return "-";
  auto t = static_cast<std::time_t>(unix_seconds.get<std::int64_t>());
  std::tm tm{};
  if (localtime_r(&t, &tm) == nullptr) return "-";
  char buf[32];
  if (std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm) == 0) return "-";
  return buf;
}

std::string text_or(const nlohmann::json& j, const char* key, const std::string& fallback) {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

}  // namespace agentworks::cli
