// The agent CLI versions whose native route (docs/native-routes.md) was checked by hand: the bridge turns a route on
// only for these, and `agentworks doctor` says which route an installed CLI gets. Widen only after re-checking
// the facts on a newer version. No allocation beyond the returned strings; no JSON.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace agentworks::native_versions {

// Claude Code's session inbox: >= 2.1.332 and < 2.2.0 ("X.Y.Z", digits only).
bool claude_inbox_known(std::string_view version);
inline constexpr std::string_view kClaudeInboxRange = ">= 2.1.332, < 2.2.0";

// Codex's `codex queue`: >= 0.171.0 and < 0.172.0.
bool codex_queue_known(std::string_view version);
inline constexpr std::string_view kCodexQueueRange = ">= 0.171.0, < 0.172.0";

// Pi's extension API as the agentworks extension uses it (sendUserMessage with deliverAs, ctx.isIdle,
// registerCommand, registerTool after start): >= 0.73.0 and < 0.74.0.
bool pi_steer_known(std::string_view version);
inline constexpr std::string_view kPiSteerRange = ">= 0.73.0, < 0.74.0";

// "codex-cli 0.171.0\n" -> "0.171.0"; nullopt when the answer is not exactly one plain X.Y.Z version line.
std::optional<std::string> parse_codex_version_line(std::string_view output);
// "2.1.332 (Claude Code)\n" -> "2.1.332": the first X.Y.Z word of the first line; nullopt when there is none.
std::optional<std::string> parse_claude_version_line(std::string_view output);

}  // namespace agentworks::native_versions
