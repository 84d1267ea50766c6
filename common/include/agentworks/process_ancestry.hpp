// Which provider process (Claude Code, Codex, Cursor) a hook or MCP child runs under: the first ancestor that is
// not a shell or a launcher. A process is named by its pid plus its start time, so a recycled pid never matches
// (R-C6, R-H11). Linux /proc only; elsewhere every call answers nullopt.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace agentworks::process {

struct ProcessKey {
  long pid = 0;
  std::string start;  // field 22 of /proc/PID/stat (start time in clock ticks since boot), decimal
  bool operator==(const ProcessKey&) const = default;
};

struct ProcessInfo {
  long pid = 0;
  long ppid = 0;
  std::string comm;   // field 2, without the parentheses
  std::string start;  // field 22
};

// Parses the text of /proc/PID/stat (comm may hold spaces and parentheses). nullopt when malformed.
std::optional<ProcessInfo> parse_stat(std::string_view stat_text);
// Reads /proc/PID/stat. nullopt when the process is gone or unreadable.
std::optional<ProcessInfo> read_process(long pid);
// The key of a live process, nullopt when it is gone.
std::optional<ProcessKey> key_of(long pid);
// True for the shells and launchers that sit between a provider and its hook (sh, bash, dash, zsh, env, ...).
bool is_intermediate(std::string_view comm);
// The first ancestor of this process (starting at the parent) that is not an intermediate; nullopt when the
// chain ends (pid 1) first. At most 16 steps.
std::optional<ProcessKey> provider_ancestor();

}  // namespace agentworks::process
