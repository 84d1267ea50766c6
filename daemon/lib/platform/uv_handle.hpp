// The bridge's one way to own a libuv handle. A handle is freed by libuv's close callback, one loop turn after its
// owner let go, so it lives on the heap and its owner keeps only the pointer. Closing clears its data first, so a
// callback already queued for this turn finds nothing to call back into.
#pragma once

#include <uv.h>

namespace agentworks::bridge {

// Closes `handle`, frees it once libuv is done with it and sets the pointer to nullptr; nothing when it is null.
template <typename Handle>
void close_handle(Handle*& handle) {
  if (handle == nullptr) return;
  handle->data = nullptr;
  uv_close(reinterpret_cast<uv_handle_t*>(handle), [](uv_handle_t* h) { delete reinterpret_cast<Handle*>(h); });
  handle = nullptr;
}

inline uv_timer_t* open_timer(uv_loop_t* loop, void* data) {
  auto* timer = new uv_timer_t;
  uv_timer_init(loop, timer);
  timer->data = data;
  return timer;
}

// Stops the timer, then close_handle().
inline void close_timer(uv_timer_t*& timer) {
  if (timer == nullptr) return;
  uv_timer_stop(timer);
  close_handle(timer);
}

}  // namespace agentworks::bridge
