// Codex: are the agentworks hooks trusted, and is the messaging MCP server configured? Trust is Codex's own state,
// only READ here (never written: the person trusts hooks in Codex's /hooks): $CODEX_HOME/config.toml holds
// `[projects."DIR"] trust_level = "trusted"` (Codex reads DIR/.codex only then) and, per trusted hook,
// `[hooks.state."FILE:event:GROUP:INDEX"] trusted_hash = "sha256:…"` (event in snake case, e.g. stop,
// user_prompt_submit). Codex computes that hash itself; a hook changed after it was trusted still shows here as
// trusted, while Codex skips it until it is trusted again (`/hooks` shows it).
#include <cctype>
#include <fstream>
#include <sstream>
#include <system_error>

#include "doctor/doctor_check.hpp"
#include "doctor/doctor_state.hpp"
#include "doctor/hook_files.hpp"
#include "doctor/provider_paths.hpp"
#include "doctor/toml_scan.hpp"

namespace agentworks::cli::doctor {
namespace fs = std::filesystem;
namespace {

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// "UserPromptSubmit" -> "user_prompt_submit": how Codex names the event in a hook's trust key.
std::string snake_case(const std::string& event) {
  std::string out;
  for (const char c : event) {
    if (std::isupper(static_cast<unsigned char>(c))) {
      if (!out.empty()) out += '_';
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      out += c;
    }
  }
  return out;
}

std::string trust_fix(const fs::path& project) {
  return "cd " + project.string() + " && codex, then type /hooks and trust the agentworks hooks";
}

bool project_trusted(const TomlValues& config, const fs::path& project) {
  const std::string* level = config.get({"projects", project.string(), "trust_level"});
  return level != nullptr && *level == "trusted";
}

}  // namespace

std::vector<Finding> check_codex_trust(State& state) {
  const fs::path& project = state.inputs().project;
  const auto candidates = codex_hooks_files(project);
  HooksFile installed;
  for (const auto& path : candidates) {
    installed = read_hooks_file(path);
    if (!installed.ours.empty()) break;
  }
  if (installed.ours.empty()) {
    return one(state.inputs().provider == Provider::codex ? Status::fail : Status::warn,
               "no agentworks Codex hooks to trust", "agentworks attach codex --project " + project.string());
  }
  const fs::path config_path = codex_home() / "config.toml";
  const TomlValues config = scan_toml(read_text(config_path));
  const bool project_scope = installed.path == candidates.front();
  if (project_scope && !project_trusted(config, project)) {
    return one(Status::fail, "Codex does not trust the project " + project.string() +
                                 " (no trust_level = \"trusted\" in " + config_path.string() + "), so it ignores " +
                                 installed.path.string(),
               "cd " + project.string() + " && codex, and trust the folder when it asks; then /hooks");
  }
  std::size_t untrusted = 0;
  std::string first_untrusted;
  for (const auto& entry : installed.ours) {
    const std::string key = installed.path.string() + ":" + snake_case(entry.event) + ":" +
                            std::to_string(entry.group) + ":" + std::to_string(entry.index);
    const std::string* hash = config.get({"hooks", "state", key, "trusted_hash"});
    if (hash == nullptr || hash->rfind("sha256:", 0) != 0) {
      if (untrusted++ == 0) first_untrusted = key;
    }
  }
  if (untrusted > 0) {
    return one(Status::fail, std::to_string(untrusted) + " of " + std::to_string(installed.ours.size()) +
                                 " agentworks hooks in " + installed.path.string() + " are not trusted in " +
                                 config_path.string() + " (first: " + first_untrusted +
                                 "); Codex skips untrusted hooks silently",
               trust_fix(project));
  }
  return one(Status::ok, "all " + std::to_string(installed.ours.size()) + " agentworks hooks in " +
                             installed.path.string() + " have a trusted hash in " + config_path.string());
}

std::vector<Finding> check_codex_mcp(State& state) {
  const fs::path& project = state.inputs().project;
  const auto configs = codex_mcp_configs(project);
  for (const auto& path : configs) {
    std::error_code ec;
    if (!fs::exists(path, ec)) continue;
    const TomlValues toml = scan_toml(read_text(path));
    const std::string* command = toml.get({"mcp_servers", "agentworks", "command"});
    if (command == nullptr) continue;
    const std::string* args = toml.get({"mcp_servers", "agentworks", "args"});
    const std::string fix = "agentworks attach codex --project " + project.string() +
                            (path == configs.front() ? "" : " --global");
    if (!is_executable(*command)) {
      return one(Status::fail, path.string() + " starts the MCP server with " + *command +
                                   ", which is not an executable file", fix);
    }
    if (args == nullptr || args->find("mcp") == std::string::npos || args->find("serve") == std::string::npos) {
      return one(Status::fail, path.string() + " runs " + *command + " without `mcp serve`", fix);
    }
    if (path == configs.front()) {
      const TomlValues user = scan_toml(read_text(codex_home() / "config.toml"));
      if (!project_trusted(user, project)) {
        return one(Status::warn, path.string() + " configures the agentworks MCP server, but Codex reads it only in "
                                     "a trusted project and " + project.string() + " is not trusted",
                   "cd " + project.string() + " && codex, and trust the folder when it asks");
      }
    }
    return one(Status::ok, path.string() + " runs `" + *command + " mcp serve` (the messaging and function tools)");
  }
  std::string where;
  for (const auto& path : configs) where += (where.empty() ? "" : ", ") + path.string();
  return one(state.inputs().provider == Provider::codex ? Status::fail : Status::warn,
             "no [mcp_servers.agentworks] in " + where, "agentworks attach codex --project " + project.string());
}

}  // namespace agentworks::cli::doctor
