// `agentworks doctor`: one table of checks (check_table.cpp), each a name, a run function and the command that
// fixes it, iterated by one loop (commands/doctor.cpp). A run function never throws for what it finds: a check
// that cannot run (no login, no bridge) reports that as warn or fail with its fix. One file per group of checks.
#pragma once

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "agentworks/providers.hpp"

namespace agentworks::cli::doctor {

enum class Status { ok, warn, fail };
std::string_view status_name(Status status);

// One line of the report. An empty `fix` on a warn or fail line gets the table's fix.
struct Finding {
  Status status = Status::ok;
  std::string found;
  std::string fix;
};

class State;

struct CheckEntry {
  std::string_view name;
  std::optional<Provider> provider;  // provider-specific: skipped when --provider names another one
  std::vector<Finding> (*run)(State& state);
  std::string_view fix;  // the usual fix, when the run function has no more exact one
};

std::span<const CheckEntry> check_table();

// The checks, one function each (a function may report several lines, e.g. one per attachment).
std::vector<Finding> check_server(State& state);
std::vector<Finding> check_login(State& state);
std::vector<Finding> check_server_unit(State& state);
std::vector<Finding> check_clock(State& state);
std::vector<Finding> check_bridge(State& state);
std::vector<Finding> check_delivery(State& state);
std::vector<Finding> check_claude_hooks(State& state);
std::vector<Finding> check_claude_plugin(State& state);
std::vector<Finding> check_codex_hooks(State& state);
std::vector<Finding> check_codex_trust(State& state);
std::vector<Finding> check_codex_mcp(State& state);
std::vector<Finding> check_cursor_hooks(State& state);
std::vector<Finding> check_pi_extension(State& state);
std::vector<Finding> check_pi_cli(State& state);
std::vector<Finding> check_claude_cli(State& state);
std::vector<Finding> check_codex_cli(State& state);
std::vector<Finding> check_journal_integrity(State& state);
std::vector<Finding> check_journal_quota(State& state);

// Whether the person has this provider here: its CLI found (claude: $AGENTWORKS_CLAUDE_BIN or PATH; codex: PATH),
// or for Cursor, which agentworks never runs, its settings folder ~/.cursor.
bool provider_installed(Provider provider);

inline std::vector<Finding> one(Status status, std::string found, std::string fix = {}) {
  return {Finding{status, std::move(found), std::move(fix)}};
}

}  // namespace agentworks::cli::doctor
