#include "install/claude_permissions.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "install/codex_mcp_config.hpp"
#include "install/file_io.hpp"

namespace agentworks::cli::install {
namespace fs = std::filesystem;
using nlohmann::json;
namespace {

// The settings object, or Error(bad_request) naming the file when it is JSON of another shape.
json settings_object(const fs::path& settings) {
  json doc = read_json_file(settings);
  if (doc.is_null()) doc = json::object();
  const bool bad_permissions = doc.is_object() && doc.contains("permissions") && !doc["permissions"].is_object();
  const bool bad_allow = doc.is_object() && doc.contains("permissions") && doc["permissions"].is_object() &&
                         doc["permissions"].contains("allow") && !doc["permissions"]["allow"].is_array();
  if (!doc.is_object() || bad_permissions || bad_allow) {
    throw Error(ErrorCode::bad_request, settings.string() +
                                            " is not a Claude Code settings object with a permissions.allow list; "
                                            "fix the file and run `agentworks attach claude` again (nothing was "
                                            "changed)");
  }
  return doc;
}

}  // namespace

std::vector<std::string> claude_messaging_tool_rules() {
  std::vector<std::string> rules;
  for (const char* tool : kPluginTools) rules.push_back(std::string("mcp__plugin_agentworks_agentworks__") + tool);
  return rules;
}

json add_claude_allow_rules(const fs::path& settings) {
  json doc = settings_object(settings);
  json& allow = doc["permissions"]["allow"];
  if (allow.is_null()) allow = json::array();
  for (const auto& rule : claude_messaging_tool_rules()) {
    if (std::find(allow.begin(), allow.end(), json(rule)) == allow.end()) allow.push_back(rule);
  }
  return {{"path", settings.string()}, {"changed", write_file_atomic(settings, pretty_json(doc))}};
}

json remove_claude_allow_rules(const fs::path& settings) {
  std::error_code ec;
  if (!fs::exists(settings, ec)) return {{"path", settings.string()}, {"changed", false}};
  json doc = settings_object(settings);
  if (!doc.contains("permissions") || !doc["permissions"].contains("allow")) {
    return {{"path", settings.string()}, {"changed", false}};
  }
  json& allow = doc["permissions"]["allow"];
  const auto rules = claude_messaging_tool_rules();
  json kept = json::array();
  for (const auto& rule : allow) {
    if (!rule.is_string() || std::find(rules.begin(), rules.end(), rule.get<std::string>()) == rules.end()) {
      kept.push_back(rule);
    }
  }
  if (kept.size() == allow.size()) return {{"path", settings.string()}, {"changed", false}};
  allow = kept;
  if (allow.empty()) doc["permissions"].erase("allow");
  if (doc["permissions"].empty()) doc.erase("permissions");
  return {{"path", settings.string()}, {"changed", write_file_atomic(settings, pretty_json(doc))}};
}

}  // namespace agentworks::cli::install
