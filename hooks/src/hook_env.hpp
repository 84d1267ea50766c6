// The hook's settings from the environment the provider was started with.
#pragma once

#include <optional>
#include <string>

namespace agentworks::hook {

inline constexpr int kDefaultMaxContinuations = 3;
inline constexpr int kMaxMaxContinuations = 8;  // Claude Code ends a turn after 8 consecutive blocks anyway

// AGENTWORKS_MAX_CONTINUATIONS: an integer 0-8; unset or anything else gives the default 3.
int max_continuations_from(const char* value);
// AGENTWORKS_CONFIG made absolute (R-H13: that chat's own login); nullopt when unset or empty.
std::optional<std::string> config_from(const char* value);

}  // namespace agentworks::hook
