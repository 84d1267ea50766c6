// The hook's settings from the environment the provider was started with.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace agentworks::hook {

inline constexpr int kDefaultMaxContinuations = 3;
inline constexpr int kMaxMaxContinuations = 8;  // Claude Code ends a turn after 8 consecutive blocks anyway

// AGENTWORKS_MAX_CONTINUATIONS: an integer 0-8; unset or anything else gives the default 3.
int max_continuations_from(const char* value);
// AGENTWORKS_CONFIG made absolute (R-H13: that chat's own login); nullopt when unset or empty.
std::optional<std::string> config_from(const char* value);
// The provider's home variable: CLAUDE_CONFIG_DIR for claude, CODEX_HOME for codex, PI_CODING_AGENT_DIR for pi,
// none for cursor.
const char* provider_home_variable(std::string_view provider);
// That variable's value when it is an absolute path; nullopt otherwise (the bridge then uses the default).
std::optional<std::string> provider_home_from(const char* value);

}  // namespace agentworks::hook
