// JSON helpers for test code (the header needs only json_fwd; tests include <nlohmann/json.hpp>).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

namespace agentworks::testing {

// Parses `text`; throws std::runtime_error quoting the text when it is not JSON.
nlohmann::json parse_json(const std::string& text);
// The `error.code` of an error object {"error":{"code","message"}}, or "" when `text` is not one.
std::string error_code_of(const std::string& text);
// Compact JSON text.
std::string dump(const nlohmann::json& value);

}  // namespace agentworks::testing
