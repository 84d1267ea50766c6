#include "install/hooks_merge.hpp"

#include <nlohmann/json.hpp>
#include <optional>

#include "agentworks/error.hpp"
#include "install/embedded_plugins.hpp"

namespace agentworks::cli::install {
using nlohmann::json;
namespace {

void check_shape(const json& doc, const std::string& what) {
  if (doc.is_null()) return;
  const auto bad = [&](const std::string& why) {
    return Error(ErrorCode::bad_request,
                 what + " is not a hooks file agentworks can merge into (" + why + "); fix or move it and run again");
  };
  if (!doc.is_object()) throw bad("not a JSON object");
  if (!doc.contains("hooks")) return;
  if (!doc["hooks"].is_object()) throw bad("\"hooks\" is not an object");
  for (const auto& [event, entries] : doc["hooks"].items()) {
    if (!entries.is_array()) throw bad("\"hooks\"." + event + " is not an array");
  }
}

bool entry_is_ours(const json& entry, const std::string& hook) {
  return entry.is_object() && entry.contains("command") && entry["command"].is_string() &&
         is_agentworks_command(entry["command"].get<std::string>(), hook);
}

// One element of an event's array without our entries; nullopt when nothing of it remains.
std::optional<json> strip_element(const json& element, const std::string& hook) {
  if (entry_is_ours(element, hook)) return std::nullopt;  // Cursor's flat shape
  if (!element.is_object() || !element.contains("hooks") || !element["hooks"].is_array()) return element;
  json kept = json::array();
  bool removed = false;
  for (const auto& inner : element["hooks"]) {
    if (entry_is_ours(inner, hook)) {
      removed = true;
    } else {
      kept.push_back(inner);
    }
  }
  if (removed && kept.empty()) return std::nullopt;
  json out = element;
  out["hooks"] = std::move(kept);
  return out;
}

}  // namespace

bool is_agentworks_command(const std::string& command, const std::string& hook) {
  if (command.find("agentworks-hook") != std::string::npos) return true;
  return !hook.empty() && command.rfind(hook + " ", 0) == 0;
}

void substitute(json& doc, std::string_view placeholder, const std::string& value) {
  if (doc.is_string()) {
    std::string s = doc.get<std::string>();
    for (auto at = s.find(placeholder); at != std::string::npos; at = s.find(placeholder, at)) {
      s.replace(at, placeholder.size(), value);
      at += value.size();
    }
    doc = s;
  } else if (doc.is_structured()) {
    for (auto& child : doc) substitute(child, placeholder, value);
  }
}

void substitute_hook(json& doc, const std::string& hook) { substitute(doc, kHookPlaceholder, hook); }

json remove_hooks(const json& existing, const std::string& hook, const std::string& what) {
  check_shape(existing, what);
  json out = existing.is_null() ? json::object() : existing;
  if (!out.contains("hooks")) return out;
  json hooks = json::object();
  for (const auto& [event, entries] : out["hooks"].items()) {
    json kept = json::array();
    for (const auto& element : entries) {
      if (auto stripped = strip_element(element, hook)) kept.push_back(std::move(*stripped));
    }
    if (!kept.empty() || entries.empty()) hooks[event] = std::move(kept);
  }
  out["hooks"] = std::move(hooks);
  return out;
}

json merge_hooks(const json& existing, const json& ours, const std::string& hook, const std::string& what) {
  json out = remove_hooks(existing, hook, what);
  for (const auto& [key, value] : ours.items()) {
    if (key != "hooks" && !out.contains(key)) out[key] = value;  // e.g. Cursor's "version"
  }
  if (!out.contains("hooks")) out["hooks"] = json::object();
  for (const auto& [event, entries] : ours.at("hooks").items()) {
    json& target = out["hooks"][event];
    if (!target.is_array()) target = json::array();
    for (const auto& element : entries) target.push_back(element);
  }
  return out;
}

bool hooks_file_empty(const json& doc) {
  if (!doc.is_object()) return false;
  for (const auto& [key, value] : doc.items()) {
    if (key == "version") continue;
    if (key == "hooks" && value.is_object() && value.empty()) continue;
    return false;
  }
  return true;
}

}  // namespace agentworks::cli::install
