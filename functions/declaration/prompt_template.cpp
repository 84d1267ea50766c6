#include "declaration/prompt_template.hpp"

#include <nlohmann/json.hpp>
#include <regex>

#include <cctype>

namespace agentworks::functions {

using nlohmann::json;

namespace {

const std::regex& placeholder_re() {
  static const std::regex re(R"(\{\{\s*([A-Za-z0-9_.-]+)\s*\}\})");
  return re;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::optional<std::string> property_in(const json& schema, const std::string& name) {
  if (!schema.is_object() || !schema.contains("properties") || !schema["properties"].is_object()) return std::nullopt;
  const json& props = schema["properties"];
  if (props.contains(name)) return name;
  const std::string folded = lower(name);
  for (const auto& [key, value] : props.items())
    if (lower(key) == folded) return key;
  return std::nullopt;
}

}  // namespace

std::vector<std::string> prompt_placeholders(const std::string& prompt) {
  std::vector<std::string> names;
  for (auto it = std::sregex_iterator(prompt.begin(), prompt.end(), placeholder_re()); it != std::sregex_iterator(); ++it)
    names.push_back((*it)[1].str());
  return names;
}

std::optional<std::string> placeholder_property(const std::string& inputs_schema_json, const std::string& name) {
  return property_in(json::parse(inputs_schema_json), name);
}

std::string render_prompt(const std::string& prompt, const std::string& inputs_schema_json,
                          const std::string& arguments_json) {
  const json schema = json::parse(inputs_schema_json);
  const json args = json::parse(arguments_json);
  std::string out;
  std::size_t last = 0;
  for (auto it = std::sregex_iterator(prompt.begin(), prompt.end(), placeholder_re()); it != std::sregex_iterator(); ++it) {
    const auto& m = *it;
    out.append(prompt, last, static_cast<std::size_t>(m.position(0)) - last);
    last = static_cast<std::size_t>(m.position(0) + m.length(0));
    const auto key = property_in(schema, m[1].str());
    if (!key || !args.is_object() || !args.contains(*key)) continue;
    const json& v = args[*key];
    out += v.is_string() ? v.get<std::string>() : v.dump();
  }
  out.append(prompt, last, std::string::npos);
  return out;
}

}  // namespace agentworks::functions
