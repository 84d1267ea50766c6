// Reconnect delays: exponential backoff with full jitter (R-B4). Attempt 0 waits at most 1 s, every delay is
// capped at 30 s.
#pragma once

#include <cstdint>
#include <random>

namespace agentworks::bridge {

struct BackoffPolicy {
  std::uint64_t base_ms = 1000;
  std::uint64_t cap_ms = 30000;
};

// The upper bound of the jitter window for `attempt` (0-based): min(cap, base * 2^attempt).
std::uint64_t backoff_ceiling_ms(const BackoffPolicy& policy, unsigned attempt);

// The jitter's generator: 8 bytes of state. Every attachment stream holds one for as long as it is open, and
// std::mt19937_64 kept 2.5 KiB resident in each (docs/benchmarks.md, "Idle RSS").
using JitterRng = std::minstd_rand;

// A uniformly random delay in [0, ceiling] ("full jitter").
std::uint64_t backoff_delay_ms(const BackoffPolicy& policy, unsigned attempt, JitterRng& rng);

}  // namespace agentworks::bridge
