// The throughput driver the two-sided benchmarks share: `workers` threads, each made ready by `one(worker)` (a
// connection, a client) and then running what it returns until `total` runs are done in all.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace agentworks::bench {

// Runs per second; the first failure of any worker stops them all and is thrown as std::runtime_error.
template <typename One>
double throughput(unsigned workers, std::size_t total, One&& one) {
  std::atomic<std::size_t> next{0};
  std::mutex failure_mutex;
  std::string failure;
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (unsigned w = 0; w < workers; ++w) {
    threads.emplace_back([&, w] {
      try {
        auto state = one(w);
        while (next.fetch_add(1) < total) state();
      } catch (const std::exception& e) {
        const std::lock_guard<std::mutex> lock(failure_mutex);
        if (failure.empty()) failure = e.what();
        next = total;
      }
    });
  }
  for (auto& t : threads) t.join();
  if (!failure.empty()) throw std::runtime_error(failure);
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count();
  return static_cast<double>(total) / (static_cast<double>(ns) / 1e9);
}

}  // namespace agentworks::bench
