// The UTF-16 units one delivery text may use: the Stop hook's output and the native push's text (docs/protocol.md
// "Hook ops"), under Claude's 10,000-character cap for a hook's output. One constant for the hook and the bridge.
#pragma once

#include <cstddef>

namespace agentworks {

inline constexpr std::size_t kDeliveryBudgetUnits = 9'500;

}  // namespace agentworks
