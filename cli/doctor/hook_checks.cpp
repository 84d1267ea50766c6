// Each provider's hooks as `agentworks attach` installs them, pointing at an existing agentworks-hook; and the
// Claude Code plugin enabled in its settings the way `claude plugin install` writes them ("enabledPlugins" in the
// project's or the user's settings.json, the marketplace declared in the user's "extraKnownMarketplaces").
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <system_error>

#include "doctor/doctor_check.hpp"
#include "doctor/doctor_state.hpp"
#include "doctor/hook_files.hpp"
#include "doctor/provider_paths.hpp"

namespace agentworks::cli::doctor {
namespace fs = std::filesystem;
using nlohmann::json;
namespace {

constexpr const char* kPluginId = "agentworks@agentworks";
constexpr const char* kMarketplace = "agentworks";

bool named(State& state, Provider provider) { return state.inputs().provider == provider; }

std::string attach_fix(State& state, std::string_view provider) {
  return "agentworks attach " + std::string(provider) + " --project " + state.inputs().project.string();
}

json read_json(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return nullptr;
  std::stringstream text;
  text << in.rdbuf();
  const json doc = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  return doc.is_discarded() ? json(nullptr) : doc;
}

}  // namespace

std::vector<Finding> check_claude_hooks(State& state) {
  const fs::path hooks = claude_marketplace_dir() / "claude" / "hooks" / "hooks.json";
  return {hooks_verdict({hooks}, named(state, Provider::claude), attach_fix(state, "claude"))};
}

std::vector<Finding> check_claude_plugin(State& state) {
  const bool provider_named = named(state, Provider::claude);
  std::string enabled_in;
  for (const auto& path : claude_settings_files(state.inputs().project)) {
    const json settings = read_json(path);
    if (!settings.is_object() || !settings.contains("enabledPlugins") || !settings["enabledPlugins"].is_object()) {
      continue;
    }
    const json& plugins = settings["enabledPlugins"];
    if (!plugins.contains(kPluginId)) continue;
    if (plugins[kPluginId] != true) {
      return one(Status::fail, kPluginId + std::string(" is disabled in ") + path.string(),
                 "claude plugin enable " + std::string(kPluginId));
    }
    enabled_in = path.string();
    break;
  }
  if (enabled_in.empty()) {
    return one(provider_named ? Status::fail : Status::warn,
               std::string(kPluginId) + " is not enabled for " + state.inputs().project.string() +
                   " or in the user settings",
               attach_fix(state, "claude"));
  }
  const fs::path user_settings = claude_user_dir() / "settings.json";
  const json user = read_json(user_settings);
  const bool declared = user.is_object() && user.contains("extraKnownMarketplaces") &&
                        user["extraKnownMarketplaces"].is_object() &&
                        user["extraKnownMarketplaces"].contains(kMarketplace);
  if (!declared) {
    return one(Status::fail, "enabled in " + enabled_in + ", but the marketplace \"agentworks\" is not declared in " +
                                 user_settings.string(),
               attach_fix(state, "claude"));
  }
  return one(Status::ok, "enabled in " + enabled_in + ", marketplace declared in " + user_settings.string());
}

std::vector<Finding> check_codex_hooks(State& state) {
  return {hooks_verdict(codex_hooks_files(state.inputs().project), named(state, Provider::codex),
                        attach_fix(state, "codex"))};
}

std::vector<Finding> check_cursor_hooks(State& state) {
  return {hooks_verdict(cursor_hooks_files(state.inputs().project), named(state, Provider::cursor),
                        attach_fix(state, "cursor"))};
}

// Pi: the extension `agentworks attach pi` writes, whose agentworks-hook still exists (it runs the hook for every
// lifecycle event it forwards).
std::vector<Finding> check_pi_extension(State& state) {
  for (const auto& path : pi_extension_files(state.inputs().project)) {
    std::ifstream in(path, std::ios::binary);
    if (!in) continue;
    std::stringstream text;
    text << in.rdbuf();
    const std::string content = text.str();
    constexpr std::string_view kHookLine = "const AGENTWORKS_HOOK = \"";
    const auto at = content.find(kHookLine);
    if (content.rfind("// agentworks extension for Pi", 0) != 0 || at == std::string::npos) {
      return one(Status::fail, path.string() + " is not the agentworks extension", attach_fix(state, "pi"));
    }
    const auto start = at + kHookLine.size();
    const json hook = json::parse("\"" + content.substr(start, content.find('"', start) - start) + "\"", nullptr, false);
    std::error_code ec;
    if (!hook.is_string() || !fs::exists(hook.get<std::string>(), ec)) {
      return one(Status::fail, path.string() + " runs an agentworks-hook that no longer exists",
                 attach_fix(state, "pi"));
    }
    return one(Status::ok, "the agentworks extension is in " + path.string() + " (Pi loads it at start or /reload)");
  }
  return one(named(state, Provider::pi) ? Status::fail : Status::warn,
             "the agentworks Pi extension is not installed for " + state.inputs().project.string() +
                 " or in the Pi agent directory",
             attach_fix(state, "pi"));
}

}  // namespace agentworks::cli::doctor
