// The bridge journal's cache quota (R-B9): what the bridge enforces and what `agentworks doctor` reports against.
// One definition, so the report cannot drift from the bridge.
#pragma once

#include <cstdint>

namespace agentworks {

// Message bodies the journal caches at most, summed over every attachment (bytes of the bodies).
inline constexpr std::int64_t kJournalMaxTotalBodyBytes = 32LL * 1024 * 1024;
// Cached messages at most per attached chat.
inline constexpr std::int64_t kJournalMaxMessagesPerSession = 2000;

}  // namespace agentworks
