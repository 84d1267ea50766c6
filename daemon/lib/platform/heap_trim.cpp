#include "platform/heap_trim.hpp"

#include <malloc.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "platform/uv_handle.hpp"

namespace agentworks::bridge {

namespace {

// Anonymous resident bytes (statm: resident minus file-backed and shared pages); 0 when procfs cannot say.
std::uint64_t anonymous_resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "re");
  if (f == nullptr) return 0;
  unsigned long long size = 0, resident = 0, shared = 0;
  const int n = std::fscanf(f, "%llu %llu %llu", &size, &resident, &shared);
  std::fclose(f);
  if (n != 3 || shared > resident) return 0;
  return (resident - shared) * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace

HeapTrim::HeapTrim(uv_loop_t* loop, HeapTrimTuning tuning)
    : tuning_(tuning), check_(new uv_check_t), timer_(open_timer(loop, this)), delay_ms_(tuning.first_delay_ms) {
  uv_check_init(loop, check_);
  check_->data = this;
  // Neither handle keeps the loop alive: the bridge ends when its real work ends.
  uv_unref(reinterpret_cast<uv_handle_t*>(check_));
  uv_unref(reinterpret_cast<uv_handle_t*>(timer_));
}

HeapTrim::~HeapTrim() {
  stop();
  close_handle(check_);
  close_timer(timer_);
}

void HeapTrim::start() {
  uv_check_start(check_, [](uv_check_t* c) {
    if (auto* self = static_cast<HeapTrim*>(c->data)) self->after_loop_turn();
  });
}

void HeapTrim::stop() {
  if (check_ != nullptr) uv_check_stop(check_);
  if (timer_ != nullptr) uv_timer_stop(timer_);
}

void HeapTrim::after_loop_turn() {
  // Armed once per quiet period, never pushed back: under steady load a trim still comes every delay.
  if (uv_is_active(reinterpret_cast<uv_handle_t*>(timer_)) != 0) return;
  uv_timer_start(
      timer_,
      [](uv_timer_t* t) {
        if (auto* self = static_cast<HeapTrim*>(t->data)) self->on_quiet();
      },
      delay_ms_, 0);
}

void HeapTrim::on_quiet() {
  // Worth a trim only when the process grew since the last one and the heap holds free bytes to give back (the
  // free lists keep their chunks after a trim, so free bytes alone would ask for a trim on every turn).
  const bool grew = anonymous_resident_bytes() >= resident_after_trim_ + tuning_.min_free_bytes;
  if (!grew || mallinfo2().fordblks < tuning_.min_free_bytes) {
    delay_ms_ = std::min(delay_ms_ * 2, tuning_.max_delay_ms);
    return;
  }
  malloc_trim(0);
  ++trims_;
  resident_after_trim_ = anonymous_resident_bytes();
  delay_ms_ = tuning_.first_delay_ms;
}

}  // namespace agentworks::bridge
