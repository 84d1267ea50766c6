// Reading fields of the bridge's and the server's answers in the e2e tests and benchmarks, where a field may be
// absent or null (status rows, receipts).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace agentworks::e2e {

// The string member `key`, "" when absent or not a string.
inline std::string text_field(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

// The boolean member `key`, `fallback` when absent or not a boolean.
inline bool bool_field(const nlohmann::json& j, const char* key, bool fallback = false) {
  const auto it = j.find(key);
  return it != j.end() && it->is_boolean() ? it->get<bool>() : fallback;
}

}  // namespace agentworks::e2e
