#include "driver/codex_trust.hpp"

#include <nlohmann/json.hpp>

#include "driver/app_server_client.hpp"

namespace agentworks::e2e {
namespace {

using nlohmann::json;

std::vector<ListedHook> list_with(AppServerClient& client, const std::filesystem::path& project) {
  const json result = client.call("hooks/list", {{"cwds", json::array({project.string()})}});
  std::vector<ListedHook> out;
  for (const auto& entry : result.value("data", json::array())) {
    for (const auto& h : entry.value("hooks", json::array())) {
      out.push_back({h.value("key", ""), h.value("eventName", ""), h.value("command", ""), h.value("trustStatus", "")});
    }
  }
  return out;
}

// TOML key segment in double quotes (keys here are paths: no quotes or backslashes expected, escape anyway).
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::vector<ListedHook> list_codex_hooks(const std::filesystem::path& codex, const testing::EnvOverrides& env,
                                         const std::filesystem::path& project) {
  AppServerClient client(codex, env, project);
  return list_with(client, project);
}

std::vector<ListedHook> trust_agentworks_hooks(const std::filesystem::path& codex, const testing::EnvOverrides& env,
                                               const std::filesystem::path& project) {
  {
    // The folder trust prompt: without it Codex ignores <project>/.codex entirely.
    AppServerClient client(codex, env, project);
    client.call("config/batchWrite",
                {{"edits", json::array({{{"keyPath", "projects." + quoted(project.string()) + ".trust_level"},
                                         {"value", "trusted"},
                                         {"mergeStrategy", "upsert"}}})},
                 {"reloadUserConfig", true}});
  }
  AppServerClient client(codex, env, project);  // a fresh one sees the project's hooks
  const json listed = client.call("hooks/list", {{"cwds", json::array({project.string()})}});
  json edits = json::array();
  for (const auto& entry : listed.value("data", json::array())) {
    for (const auto& h : entry.value("hooks", json::array())) {
      if (h.value("command", "").find("agentworks-hook") == std::string::npos) continue;
      if (h.value("trustStatus", "") == "trusted") continue;
      // What `/hooks` stores when the person trusts a hook: the hash Codex computed for its current content.
      edits.push_back({{"keyPath", "hooks.state." + quoted(h.value("key", "")) + ".trusted_hash"},
                       {"value", h.value("currentHash", "")},
                       {"mergeStrategy", "upsert"}});
    }
  }
  if (!edits.empty()) client.call("config/batchWrite", {{"edits", edits}, {"reloadUserConfig", true}});
  return list_with(client, project);
}

}  // namespace agentworks::e2e
