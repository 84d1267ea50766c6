#include "http/flush_policy.hpp"

namespace agentworks::server {

namespace {
constexpr double kWeight = 1.0 / 16;  // each sample's share of the running average

double blend(double average, double sample) {
  return average == 0 ? sample : average + kWeight * (sample - average);
}
}  // namespace

void FlushPolicy::flush_finished(std::chrono::nanoseconds took) {
  flush_ns_ = blend(flush_ns_, static_cast<double>(took.count()));
}

void FlushPolicy::batch_committed(std::size_t requests, std::chrono::nanoseconds loop_cpu) {
  if (requests == 0 || loop_cpu.count() <= 0) return;
  const double per_request = static_cast<double>(loop_cpu.count()) / static_cast<double>(requests);
  cpu_per_request_ns_ = blend(cpu_per_request_ns_, per_request);
}

bool FlushPolicy::ask_at_once(std::size_t waiting) const {
  if (flush_ns_ == 0 || cpu_per_request_ns_ == 0) return false;
  return flush_ns_ < cpu_per_request_ns_ * static_cast<double>(waiting);
}

}  // namespace agentworks::server
