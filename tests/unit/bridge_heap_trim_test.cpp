// The bridge gives freed heap back after a burst (docs/benchmarks.md, "Idle RSS"): the pages of free chunks in the
// middle of the heap leave the resident set once the loop has had a look, and a look with nothing new to give back
// trims nothing.
#include <gtest/gtest.h>
#include <uv.h>

#include <cstdio>
#include <cstring>
#include <unistd.h>
#include <vector>

#include "platform/heap_trim.hpp"

namespace agentworks::bridge {
namespace {

std::uint64_t anonymous_resident_kib() {
  std::FILE* f = std::fopen("/proc/self/statm", "re");
  unsigned long long size = 0, resident = 0, shared = 0;
  EXPECT_EQ(std::fscanf(f, "%llu %llu %llu", &size, &resident, &shared), 3);
  std::fclose(f);
  return (resident - shared) * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE)) / 1024;
}

// Runs the loop with one piece of activity now and an end after `ms`.
void run_loop_for(uv_loop_t* loop, std::uint64_t ms) {
  uv_timer_t wake{}, end{};
  uv_timer_init(loop, &wake);
  uv_timer_init(loop, &end);
  uv_timer_start(&wake, [](uv_timer_t*) {}, 0, 0);
  uv_timer_start(&end, [](uv_timer_t* t) { uv_stop(t->loop); }, ms, 0);
  uv_run(loop, UV_RUN_DEFAULT);
  uv_close(reinterpret_cast<uv_handle_t*>(&wake), nullptr);
  uv_close(reinterpret_cast<uv_handle_t*>(&end), nullptr);
  uv_run(loop, UV_RUN_NOWAIT);
}

TEST(BridgeHeapTrim, FreedMiddleOfTheHeapLeavesTheResidentSetAfterALook) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer's allocator keeps freed blocks in quarantine; glibc's trim does not apply";
#endif
  uv_loop_t loop;
  ASSERT_EQ(uv_loop_init(&loop), 0);
  {
    HeapTrim trim(&loop, HeapTrimTuning{20, 1000, 256 * 1024});
    trim.start();
    run_loop_for(&loop, 100);  // the baseline look: whatever the test binary has freed so far
    const unsigned trims_before = trim.trims();

    // A burst: 16 MiB in 4 KiB blocks, then every block freed except each 16th, which keeps the free runs in the
    // middle of the heap where glibc does not return them by itself.
    std::vector<char*> blocks;
    for (int i = 0; i < 4096; ++i) {
      blocks.push_back(static_cast<char*>(std::malloc(4000)));
      std::memset(blocks.back(), 1, 4000);
    }
    for (std::size_t i = 0; i < blocks.size(); ++i) {
      if (i % 16 != 15) {
        std::free(blocks[i]);
        blocks[i] = nullptr;
      }
    }
    const auto after_burst = anonymous_resident_kib();
    run_loop_for(&loop, 200);
    const auto after_look = anonymous_resident_kib();
    EXPECT_EQ(trim.trims(), trims_before + 1);
    EXPECT_LT(after_look + 8 * 1024, after_burst) << "resident after the burst " << after_burst
                                                   << " KiB, after the look " << after_look << " KiB";

    // Nothing new freed: the next look leaves the heap alone.
    run_loop_for(&loop, 200);
    EXPECT_EQ(trim.trims(), trims_before + 1);
    for (char* b : blocks) std::free(b);
  }
  uv_run(&loop, UV_RUN_NOWAIT);
  EXPECT_EQ(uv_loop_close(&loop), 0);
}

}  // namespace
}  // namespace agentworks::bridge
