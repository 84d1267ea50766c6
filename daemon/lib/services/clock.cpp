#include "services/clock.hpp"

#include <chrono>

namespace agentworks::bridge {

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace agentworks::bridge
