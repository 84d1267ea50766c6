// At most one log line per window for an event that can repeat thousands of times a second (accept errors,
// refused connections): the caller counts every occurrence and logs only when hit() says so, with the count.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

namespace agentworks::server {

class LogThrottle {
 public:
  explicit LogThrottle(std::chrono::seconds window) : window_(window) {}

  // Counts one occurrence; returns the number of occurrences since the last line when a line is due now.
  std::optional<std::uint64_t> hit() {
    ++count_;
    const auto now = std::chrono::steady_clock::now();
    if (logged_once_ && now - last_ < window_) return std::nullopt;
    logged_once_ = true;
    last_ = now;
    const std::uint64_t n = count_;
    count_ = 0;
    return n;
  }

 private:
  std::chrono::seconds window_;
  std::chrono::steady_clock::time_point last_{};
  bool logged_once_ = false;
  std::uint64_t count_ = 0;
};

}  // namespace agentworks::server
