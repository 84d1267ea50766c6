// When the next WAL flush may start while one is running. Two schedules, each the better one in one regime:
// - after the answers: a batch committed during a flush is asked for once that flush has returned and its answers
//   are out, so the closed-loop writers it answers come back together into one batch: one flush per round trip.
//   Right when a flush costs more than the loop's work for a round (a slow disk): the loop waits a little, but no
//   writer waits for a second flush.
// - at once: the next flush starts the moment the last one ends while the loop goes on with the next requests.
//   Right when a flush costs less than the loop's work for a round (a fast disk): the loop and the disk then work
//   side by side instead of taking turns.
// The policy measures both costs as the server runs and asks at once only while a flush takes less time than the
// loop's CPU per request times the requests waiting for a flush. Either schedule keeps every answer behind the
// flush that covers it; the choice moves throughput only.
#pragma once

#include <chrono>
#include <cstddef>

namespace agentworks::server {

class FlushPolicy {
 public:
  // A flush of the WAL took `took`.
  void flush_finished(std::chrono::nanoseconds took);
  // The loop committed a batch of `requests` requests and spent `loop_cpu` of its own CPU since the last batch.
  void batch_committed(std::size_t requests, std::chrono::nanoseconds loop_cpu);
  // May a flush be asked for while another runs, with `waiting` requests committed and not yet answered?
  bool ask_at_once(std::size_t waiting) const;

  double flush_ns() const { return flush_ns_; }
  double cpu_per_request_ns() const { return cpu_per_request_ns_; }

 private:
  // Averages over the last few dozen samples: steady under jitter, yet a disk that slows down is seen within a
  // few flushes. Zero: nothing measured yet, and the policy keeps the after-the-answers schedule.
  double flush_ns_ = 0;
  double cpu_per_request_ns_ = 0;
};

}  // namespace agentworks::server
