#include "testing/json_util.hpp"

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace agentworks::testing {

nlohmann::json parse_json(const std::string& text) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("not JSON (") + e.what() + "): '" + text.substr(0, 2000) + "'");
  }
}

std::string error_code_of(const std::string& text) {
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return "";
  const auto err = j.find("error");
  if (err == j.end() || !err->is_object()) return "";
  const auto code = err->find("code");
  if (code == err->end() || !code->is_string()) return "";
  return code->get<std::string>();
}

std::string dump(const nlohmann::json& value) { return value.dump(); }

}  // namespace agentworks::testing
