#include "platform/backoff.hpp"

#include <algorithm>

namespace agentworks::bridge {

std::uint64_t backoff_ceiling_ms(const BackoffPolicy& policy, unsigned attempt) {
  std::uint64_t ceiling = policy.base_ms;
  for (unsigned i = 0; i < attempt && ceiling < policy.cap_ms; ++i) ceiling *= 2;
  return std::min(ceiling, policy.cap_ms);
}

std::uint64_t backoff_delay_ms(const BackoffPolicy& policy, unsigned attempt, JitterRng& rng) {
  std::uniform_int_distribution<std::uint64_t> dist(0, backoff_ceiling_ms(policy, attempt));
  return dist(rng);
}

}  // namespace agentworks::bridge
