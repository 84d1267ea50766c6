// Strict access to a JSON request body: unknown fields and wrong types are bad_request.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace agentworks::server {

// Parses a request body that must be a JSON object. Refuses (bad_request) invalid JSON, a non-object, a key
// repeated within one object at any depth (naming the key), and nesting deeper than 64 levels.
nlohmann::json parse_request_body(const std::string& text);

class Body {
 public:
  // Throws bad_request when `body` has a field outside `allowed`.
  Body(const nlohmann::json& body, std::initializer_list<const char*> allowed);

  std::string string(const char* key) const;  // required
  std::optional<std::string> opt_string(const char* key) const;
  std::optional<bool> opt_bool(const char* key) const;
  std::optional<std::int64_t> opt_int64(const char* key) const;
  std::optional<std::vector<std::string>> opt_string_array(const char* key, std::size_t max_items) const;

 private:
  const nlohmann::json& body_;
};

}  // namespace agentworks::server
