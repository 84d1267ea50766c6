// Gives freed heap pages back to the system after a burst of work. glibc returns only the top of its heap by
// itself: after a catch-up or a `status` of many attachments the freed middle stayed resident (about 0.7 MiB with
// 100 idle streams, docs/benchmarks.md "Idle RSS"). A loop turn arms one look a delay later; the look trims when
// the process grew since the last trim and the heap holds free bytes. A look that finds nothing to give back
// doubles the delay, so an idle bridge is woken for it at most once a minute.
#pragma once

#include <uv.h>

#include <cstddef>
#include <cstdint>

namespace agentworks::bridge {

struct HeapTrimTuning {
  std::uint64_t first_delay_ms = 1000;
  std::uint64_t max_delay_ms = 60000;
  // Below this much growth since the last trim, or free heap, a trim is not worth its walk over the free lists.
  std::size_t min_free_bytes = 256 * 1024;
};

class HeapTrim {
 public:
  explicit HeapTrim(uv_loop_t* loop, HeapTrimTuning tuning = {});
  ~HeapTrim();
  HeapTrim(const HeapTrim&) = delete;
  HeapTrim& operator=(const HeapTrim&) = delete;

  void start();
  void stop();
  // Trims run so far (tests).
  unsigned trims() const { return trims_; }

 private:
  void after_loop_turn();
  void on_quiet();

  HeapTrimTuning tuning_;
  uv_check_t* check_;
  uv_timer_t* timer_;
  std::uint64_t delay_ms_;
  unsigned trims_ = 0;
  std::uint64_t resident_after_trim_ = 0;
};

}  // namespace agentworks::bridge
