// The held-back count of an attachment whose journal was full (daemon/lib/state/held_back.hpp; R-B9, R-B12, issue
// 12.3): caching pauses at the first message with no room, stream events while paused are counted once each
// (replays included), and the count falls as the replayed messages are journaled.
#include "state/held_back.hpp"

#include <gtest/gtest.h>

namespace agentworks::bridge {
namespace {

TEST(HeldBack, PausesCountsDistinctAndSettlesOnReplay_RB9) {
  HeldBack h;
  h.received("att_1", 1, ReceiveResult::cached);
  EXPECT_FALSE(h.paused("att_1"));
  EXPECT_EQ(h.count("att_1"), 0);
  h.received("att_1", 2, ReceiveResult::over_quota);
  h.received("att_1", 3, ReceiveResult::over_quota);
  EXPECT_TRUE(h.paused("att_1"));
  EXPECT_EQ(h.count("att_1"), 2);
  // Live events while paused, then the same ones again after a reconnect of the stream: each counted once.
  h.dropped("att_1", 4);
  h.dropped("att_1", 3);
  h.dropped("att_1", 4);
  EXPECT_EQ(h.count("att_1"), 3);
  EXPECT_EQ(h.paused_attachments(), std::vector<std::string>{"att_1"});

  // Room again: the stream is reopened from the watermark and replays 2, 3, 4.
  h.resume("att_1");
  EXPECT_FALSE(h.paused("att_1"));
  EXPECT_EQ(h.count("att_1"), 3);  // still waiting until the replay journals them
  h.received("att_1", 2, ReceiveResult::cached);
  EXPECT_EQ(h.count("att_1"), 2);
  h.received("att_1", 3, ReceiveResult::over_quota);  // full again after one
  EXPECT_TRUE(h.paused("att_1"));
  EXPECT_EQ(h.count("att_1"), 2);
  h.resume("att_1");
  h.received("att_1", 3, ReceiveResult::cached);
  h.received("att_1", 4, ReceiveResult::acknowledged);  // acknowledged on the server meanwhile: not waiting
  EXPECT_EQ(h.count("att_1"), 0);
  EXPECT_FALSE(h.paused("att_1"));
  EXPECT_TRUE(h.paused_attachments().empty());
  h.received("att_1", 5, ReceiveResult::cached);
  EXPECT_EQ(h.count("att_1"), 0);
  EXPECT_EQ(h.count("att_other"), 0);
}

}  // namespace
}  // namespace agentworks::bridge
