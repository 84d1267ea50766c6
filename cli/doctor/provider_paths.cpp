#include "doctor/provider_paths.hpp"

#include <cstdlib>

#include "agentworks/paths.hpp"
#include "agentworks/providers.hpp"

namespace agentworks::cli::doctor {
namespace fs = std::filesystem;
namespace {

fs::path from_variable_or(const char* variable, const fs::path& fallback) {
  const char* value = variable != nullptr ? std::getenv(variable) : nullptr;
  return value != nullptr && *value != '\0' ? fs::absolute(value) : fallback;
}

// The project's file, then the person's, once: in the home folder itself (project = $HOME) they are one file.
std::vector<fs::path> project_then_own(const fs::path& in_project, const fs::path& own) {
  if (in_project.lexically_normal() == own.lexically_normal()) return {own};
  return {in_project, own};
}

}  // namespace

fs::path codex_home() {
  return from_variable_or(provider_info(Provider::codex).home_variable, paths::home_dir() / ".codex");
}

fs::path claude_user_dir() {
  return from_variable_or(provider_info(Provider::claude).home_variable, paths::home_dir() / ".claude");
}

std::vector<fs::path> pi_extension_files(const fs::path& project) {
  const auto agent = from_variable_or(provider_info(Provider::pi).home_variable, paths::home_dir() / ".pi" / "agent");
  return project_then_own(project / ".pi" / "extensions" / "agentworks.ts", agent / "extensions" / "agentworks.ts");
}

fs::path claude_marketplace_dir() { return paths::data_dir() / "claude-marketplace"; }

std::vector<fs::path> codex_hooks_files(const fs::path& project) {
  return project_then_own(project / ".codex" / "hooks.json", codex_home() / "hooks.json");
}

std::vector<fs::path> codex_mcp_configs(const fs::path& project) {
  return project_then_own(project / ".codex" / "config.toml", codex_home() / "config.toml");
}

std::vector<fs::path> cursor_hooks_files(const fs::path& project) {
  return project_then_own(project / ".cursor" / "hooks.json", paths::home_dir() / ".cursor" / "hooks.json");
}

std::vector<fs::path> claude_settings_files(const fs::path& project) {
  return {project / ".claude" / "settings.json", project / ".claude" / "settings.local.json",
          claude_user_dir() / "settings.json"};
}

}  // namespace agentworks::cli::doctor
