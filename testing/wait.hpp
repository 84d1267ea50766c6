// Waiting for a condition with a deadline: tests poll, they never sleep a fixed time and hope.
#pragma once

#include <chrono>
#include <thread>

namespace agentworks::testing {

// Polls `condition` until it returns true (-> true) or the timeout passes (-> false).
template <typename Condition>
bool wait_until(Condition&& condition, std::chrono::milliseconds timeout = std::chrono::seconds(10),
                std::chrono::milliseconds interval = std::chrono::milliseconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    if (condition()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(interval);
  }
}

}  // namespace agentworks::testing
