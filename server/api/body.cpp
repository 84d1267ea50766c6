#include "api/body.hpp"

#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "agentworks/error.hpp"

namespace agentworks::server {

nlohmann::json parse_request_body(const std::string& text) {
  constexpr int kMaxDepth = 64;
  std::vector<std::set<std::string>> keys;  // one set per open object
  const nlohmann::json::parser_callback_t check = [&keys](int depth, nlohmann::json::parse_event_t event,
                                                          nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    if ((event == E::object_start || event == E::array_start) && depth >= kMaxDepth)
      throw Error(ErrorCode::bad_request, "the body nests deeper than 64 levels");
    if (event == E::object_start) keys.emplace_back();
    if (event == E::object_end && !keys.empty()) keys.pop_back();
    if (event == E::key && !keys.empty() && !keys.back().insert(parsed.get<std::string>()).second)
      throw Error(ErrorCode::bad_request, "the key '" + parsed.get<std::string>() +
                                               "' appears twice in one object; send each field once");
    return true;
  };
  nlohmann::json body = nlohmann::json::parse(text, check, false);
  if (body.is_discarded()) throw Error(ErrorCode::bad_request, "the body is not valid JSON");
  if (!body.is_object()) throw Error(ErrorCode::bad_request, "the body must be a JSON object");
  return body;
}

Body::Body(const nlohmann::json& body, std::initializer_list<const char*> allowed) : body_(body) {
  for (auto it = body_.begin(); it != body_.end(); ++it) {
    bool known = false;
    for (const char* name : allowed) known = known || it.key() == name;
    if (!known) throw Error(ErrorCode::bad_request, "unknown field '" + it.key() + "'; see docs/protocol.md");
  }
}

std::string Body::string(const char* key) const {
  auto v = opt_string(key);
  if (!v) throw Error(ErrorCode::bad_request, std::string("missing field '") + key + "'");
  return *v;
}

std::optional<std::string> Body::opt_string(const char* key) const {
  auto it = body_.find(key);
  if (it == body_.end() || it->is_null()) return std::nullopt;
  if (!it->is_string()) throw Error(ErrorCode::bad_request, std::string("field '") + key + "' must be a string");
  return it->get<std::string>();
}

std::optional<bool> Body::opt_bool(const char* key) const {
  auto it = body_.find(key);
  if (it == body_.end() || it->is_null()) return std::nullopt;
  if (!it->is_boolean()) throw Error(ErrorCode::bad_request, std::string("field '") + key + "' must be true or false");
  return it->get<bool>();
}

std::optional<std::int64_t> Body::opt_int64(const char* key) const {
  auto it = body_.find(key);
  if (it == body_.end() || it->is_null()) return std::nullopt;
  if (!it->is_number_integer())
    throw Error(ErrorCode::bad_request, std::string("field '") + key + "' must be a whole number");
  return it->get<std::int64_t>();
}

std::optional<std::vector<std::string>> Body::opt_string_array(const char* key, std::size_t max_items) const {
  auto it = body_.find(key);
  if (it == body_.end() || it->is_null()) return std::nullopt;
  if (!it->is_array()) throw Error(ErrorCode::bad_request, std::string("field '") + key + "' must be an array of strings");
  if (it->size() > max_items)
    throw Error(ErrorCode::bad_request, std::string("field '") + key + "' has more than " + std::to_string(max_items) + " items");
  std::vector<std::string> out;
  for (const auto& v : *it) {
    if (!v.is_string()) throw Error(ErrorCode::bad_request, std::string("field '") + key + "' must be an array of strings");
    out.push_back(v.get<std::string>());
  }
  return out;
}

}  // namespace agentworks::server
