// Unix seconds as RFC 3339 text in UTC, and back: the one spelling of a moment the CLI, the MCP servers and the
// server show and accept (wakeups take `at`; tasks show their times).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentworks {

// "2026-12-06T05:00:00Z".
std::string utc_text(std::int64_t unix_seconds);

// "YYYY-MM-DDTHH:MM:SS" with optional fractional seconds (dropped) and "Z" or "+HH:MM"/"-HH:MM"; a lower-case
// "t"/"z" or a space for "T" are accepted too. nullopt for anything else, including an impossible date.
std::optional<std::int64_t> parse_utc_text(std::string_view text);

}  // namespace agentworks
