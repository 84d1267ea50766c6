// Every AGENTWORKS_* environment variable the programs read, in one table with its default and what it is for,
// so none is read under a misspelt name and docs/operations.md ("Environment") can list them all (a unit test
// checks the page against the table). Code reads a variable through get(), never std::getenv with a literal.
#pragma once

#include <span>
#include <string_view>

namespace agentworks::env {

enum class Var {
  config,
  bridge_bin,
  server_bin,
  hook_bin,
  claude_bin,
  claude_channel,
  notify_command,
  notify_after_ms,
  max_continuations,
  bridge_watchdog_ms,
  bridge_max_messages_per_session,
  failpoint,
  execution_server,
  execution_server_ca_file,
  execution_call_id,
  execution_call_token,
  codex_bin,
  cli_bin,
  conversation_id,
  turn_token,
  keeper_bin,
};

struct VarInfo {
  Var var;
  std::string_view name;
  std::string_view default_value;  // what applies when the variable is unset, in words
  std::string_view purpose;
  bool test_knob;  // for tests and benchmarks, not for people
};

std::span<const VarInfo> table();
const VarInfo& info(Var var);

// The variable's value, or nullptr when it is unset or empty (an empty value means "unset" everywhere).
const char* get(Var var);

}  // namespace agentworks::env
