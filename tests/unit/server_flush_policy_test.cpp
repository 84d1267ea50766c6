// When the server asks for the next WAL flush while one runs (server/http/flush_policy.hpp): at once while a flush
// is cheaper than the loop's work for the requests waiting, after the answers while it costs more, and after the
// answers before anything was measured. Group commit in both sync regimes.
#include <gtest/gtest.h>

#include <chrono>

#include "http/flush_policy.hpp"

namespace agentworks::server {
namespace {

using std::chrono::microseconds;

TEST(FlushPolicyTest, WaitsForTheAnswersUntilBothCostsAreMeasured) {
  FlushPolicy policy;
  EXPECT_FALSE(policy.ask_at_once(8));
  policy.flush_finished(microseconds(100));
  EXPECT_FALSE(policy.ask_at_once(8)) << "the loop's cost is not known yet";
  FlushPolicy other;
  other.batch_committed(8, microseconds(800));
  EXPECT_FALSE(other.ask_at_once(8)) << "the flush's cost is not known yet";
}

TEST(FlushPolicyTest, FastDiskAsksAtOnceSlowDiskWaits) {
  // 8 writers, 120 µs of loop CPU each: a round's work is 960 µs.
  FlushPolicy fast;
  FlushPolicy slow;
  for (int i = 0; i < 50; ++i) {
    fast.batch_committed(8, microseconds(960));
    slow.batch_committed(8, microseconds(960));
    fast.flush_finished(microseconds(300));   // an SSD's fdatasync
    slow.flush_finished(microseconds(4400));  // a loaded disk's
  }
  EXPECT_TRUE(fast.ask_at_once(8));
  EXPECT_FALSE(slow.ask_at_once(8));
  // With fewer requests waiting, less loop work could overlap the flush: the same fast disk is then worth waiting
  // for (two requests cost 240 µs, less than the 300 µs flush).
  EXPECT_FALSE(fast.ask_at_once(2));
  EXPECT_FALSE(fast.ask_at_once(0));
}

TEST(FlushPolicyTest, FollowsADiskThatSlowsDownAndRecovers) {
  FlushPolicy policy;
  for (int i = 0; i < 50; ++i) {
    policy.batch_committed(4, microseconds(400));
    policy.flush_finished(microseconds(200));
  }
  ASSERT_TRUE(policy.ask_at_once(8));
  int flushes = 0;
  while (policy.ask_at_once(8) && flushes < 1000) {
    policy.flush_finished(std::chrono::milliseconds(5));
    ++flushes;
  }
  EXPECT_LT(flushes, 10) << "a slow disk is seen within a few flushes";
  ASSERT_FALSE(policy.ask_at_once(8));
  flushes = 0;
  while (!policy.ask_at_once(8) && flushes < 1000) {
    policy.flush_finished(microseconds(200));
    ++flushes;
  }
  EXPECT_LT(flushes, 100) << "and a fast one again";
  EXPECT_TRUE(policy.ask_at_once(8));
}

TEST(FlushPolicyTest, IgnoresEmptyOrClocklessBatches) {
  FlushPolicy policy;
  policy.batch_committed(0, microseconds(5000));
  policy.batch_committed(3, microseconds(0));
  EXPECT_EQ(policy.cpu_per_request_ns(), 0);
  policy.batch_committed(4, microseconds(400));
  EXPECT_DOUBLE_EQ(policy.cpu_per_request_ns(), 100'000);
}

}  // namespace
}  // namespace agentworks::server
