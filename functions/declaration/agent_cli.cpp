#include "declaration/agent_cli.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "agentworks/environment.hpp"

namespace agentworks::functions {

std::optional<std::string> find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return std::nullopt;
  std::string dirs = path;
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t colon = std::min(dirs.find(':', start), dirs.size());
    const std::string dir = dirs.substr(start, colon - start);
    start = colon + 1;
    if (dir.empty() || dir.front() != '/') continue;
    const std::string candidate = dir + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

std::optional<std::string> find_agent_cli(Runner runner) {
  const char* given = env::get(runner == Runner::claude ? env::Var::claude_bin : env::Var::codex_bin);
  if (given != nullptr) {
    if (::access(given, X_OK) == 0) return std::filesystem::absolute(given).string();
    return std::nullopt;
  }
  return find_on_path(runner == Runner::claude ? "claude" : "codex");
}

std::string missing_agent_cli(Runner runner) {
  const bool claude = runner == Runner::claude;
  return std::string(claude ? "claude" : "codex") + " is not on agentworks-server's PATH: install " +
         (claude ? "Claude Code" : "Codex") + " or set " + (claude ? "AGENTWORKS_CLAUDE_BIN" : "AGENTWORKS_CODEX_BIN") +
         " for the server";
}

}  // namespace agentworks::functions
