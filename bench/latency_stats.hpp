// Percentiles over a set of latency samples (nanoseconds).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace agentworks::bench {

struct LatencySummary {
  std::size_t count = 0;
  double p50_ms = 0;
  double p99_ms = 0;
  double max_ms = 0;
};

inline LatencySummary summarize(std::vector<std::int64_t> samples) {
  LatencySummary s;
  s.count = samples.size();
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  // Nearest-rank percentile: the smallest sample with at least p% of samples <= it.
  auto rank = [&](double p) {
    const auto n = static_cast<double>(samples.size());
    auto index = static_cast<std::size_t>(p * n + 0.999999);
    index = std::clamp<std::size_t>(index, 1, samples.size());
    return static_cast<double>(samples[index - 1]) / 1e6;
  };
  s.p50_ms = rank(0.50);
  s.p99_ms = rank(0.99);
  s.max_ms = static_cast<double>(samples.back()) / 1e6;
  return s;
}

}  // namespace agentworks::bench
