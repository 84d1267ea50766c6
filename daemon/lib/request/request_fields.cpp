#include "request/request_fields.hpp"

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

bool optional_bool(const nlohmann::json& req, const char* field, bool fallback) {
  const auto it = req.find(field);
  if (it == req.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) throw Error(ErrorCode::bad_request, std::string("field '") + field + "' must be true or false");
  return it->get<bool>();
}

std::optional<process::ProcessKey> optional_process(const nlohmann::json& req) {
  const auto it = req.find("process");
  if (it == req.end() || it->is_null()) return std::nullopt;
  const auto bad = [] {
    return Error(ErrorCode::bad_request,
                 "field 'process' must be {\"pid\": N, \"start\": \"T\"} (pid > 0, start: field 22 of /proc/PID/stat)");
  };
  const nlohmann::json& p = *it;
  if (!p.is_object() || !p.contains("pid") || !p.contains("start")) throw bad();
  const nlohmann::json& pid = p["pid"];
  const nlohmann::json& start = p["start"];
  if (!pid.is_number_integer() || !start.is_string()) throw bad();
  const auto pid_value = pid.get<std::int64_t>();
  const auto& start_text = start.get_ref<const std::string&>();
  if (pid_value <= 0 || pid_value > 0x7fffffff || start_text.empty() || start_text.size() > 32) throw bad();
  for (const char c : start_text) {
    if (c < '0' || c > '9') throw bad();
  }
  return process::ProcessKey{static_cast<long>(pid_value), start_text};
}

void only_action_fields(const nlohmann::json& req, std::initializer_list<const char*> allowed) {
  static const char* const kSession[] = {"op", "v", "id", "provider", "session_id", "process", "action"};
  for (const auto& [key, value] : req.items()) {
    bool known = false;
    for (const char* k : kSession) known = known || key == k;
    for (const char* k : allowed) known = known || key == k;
    if (!known) throw Error(ErrorCode::bad_request, "field '" + key + "' is not one this action takes");
  }
}

}  // namespace agentworks::bridge
