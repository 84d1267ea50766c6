#include "request_fields.hpp"

#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "agentworks/validation.hpp"

namespace agentworks::bridge {

std::optional<std::string> optional_string(const nlohmann::json& req, const char* field, std::size_t max_bytes) {
  const auto it = req.find(field);
  if (it == req.end() || it->is_null()) return std::nullopt;
  if (!it->is_string()) throw Error(ErrorCode::bad_request, std::string("field '") + field + "' must be a string");
  const auto& s = it->get_ref<const std::string&>();
  if (s.size() > max_bytes) {
    throw Error(ErrorCode::bad_request,
                std::string("field '") + field + "' is too long (at most " + std::to_string(max_bytes) + " bytes)");
  }
  if (!utf8_length(s)) throw Error(ErrorCode::bad_request, std::string("field '") + field + "' is not valid UTF-8");
  return s;
}

std::string required_string(const nlohmann::json& req, const char* field, std::size_t max_bytes) {
  auto s = optional_string(req, field, max_bytes);
  if (!s || s->empty()) throw Error(ErrorCode::bad_request, std::string("field '") + field + "' is required");
  return *s;
}

std::int64_t optional_int(const nlohmann::json& req, const char* field, std::int64_t fallback, std::int64_t min,
                          std::int64_t max) {
  const auto it = req.find(field);
  if (it == req.end() || it->is_null()) return fallback;
  if (!it->is_number_integer()) {
    throw Error(ErrorCode::bad_request, std::string("field '") + field + "' must be an integer");
  }
  const auto v = it->get<std::int64_t>();
  if (v < min || v > max) {
    throw Error(ErrorCode::bad_request, std::string("field '") + field + "' must be between " +
                                            std::to_string(min) + " and " + std::to_string(max));
  }
  return v;
}

SessionKey session_key(const nlohmann::json& req) {
  SessionKey key{required_string(req, "provider", 32), required_string(req, "session_id", 200)};
  for (const char c : key.provider) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (!ok) throw Error(ErrorCode::bad_request, "field 'provider' must be lower-case letters, digits, '_' or '-'");
  }
  if (!valid_client_id(key.session_id)) {
    throw Error(ErrorCode::bad_request, "field 'session_id' must be 1-200 printable ASCII characters");
  }
  return key;
}

}  // namespace agentworks::bridge
