// Where the person's agent CLIs are for this server: what an agent-run call starts (runner/) and what `crews
// register` warns about when it is missing (api/), found the same way by both.
#pragma once

#include <optional>
#include <string>

#include "declaration/declaration.hpp"

namespace agentworks::functions {

// An executable `name` in an absolute directory of the server's PATH (relative entries depend on the cwd: skipped).
std::optional<std::string> find_on_path(const std::string& name);
// The executable of the person's own CLI: AGENTWORKS_CLAUDE_BIN / AGENTWORKS_CODEX_BIN, else `claude` / `codex` on
// the server's PATH. nullopt when there is none.
std::optional<std::string> find_agent_cli(Runner runner);
// What to do when it is missing, one sentence: "claude is not on agentworks-server's PATH: install …".
std::string missing_agent_cli(Runner runner);

}  // namespace agentworks::functions
