// Desktop notifications for waiting messages (R-B15): once per waiting episode, after the threshold, naming the
// agent only (invariant 8: never a body).
#include <gtest/gtest.h>

#include "delivery/notify.hpp"

namespace agentworks::bridge {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

TEST(BridgeNotify, OncePerWaitingEpisode_RB15) {
  WaitEpisodes e(milliseconds(1000));
  const auto t0 = Clock::now();
  const std::vector<WaitSample> waiting = {{"att_1", "alice", true}, {"att_2", "bob", false}};
  EXPECT_TRUE(e.update(waiting, t0).empty());                          // episode starts
  EXPECT_TRUE(e.update(waiting, t0 + milliseconds(999)).empty());      // not yet
  EXPECT_EQ(e.update(waiting, t0 + milliseconds(1000)), std::vector<std::string>{"alice"});
  EXPECT_TRUE(e.update(waiting, t0 + milliseconds(5000)).empty());     // same episode: no second notification
  // The chat takes the messages: the episode ends; a new one notifies again after the threshold.
  EXPECT_TRUE(e.update({{"att_1", "alice", false}}, t0 + milliseconds(6000)).empty());
  EXPECT_TRUE(e.update(waiting, t0 + milliseconds(7000)).empty());
  EXPECT_EQ(e.update(waiting, t0 + milliseconds(8000)), std::vector<std::string>{"alice"});
  // An attachment that disappears (detached, fenced, offline) ends its episode too.
  EXPECT_TRUE(e.update({}, t0 + milliseconds(9000)).empty());
  EXPECT_TRUE(e.update(waiting, t0 + milliseconds(9500)).empty());
}

TEST(BridgeNotify, TextNamesTheAgentOnly_RB15) {
  const std::string text = waiting_text("reviewer-7");
  EXPECT_NE(text.find("reviewer-7"), std::string::npos);
  const auto argv = notifier_argv("/usr/bin/notify-send", waiting_title(), text);
  ASSERT_EQ(argv.size(), 4u);
  EXPECT_EQ(argv[0], "/usr/bin/notify-send");
  EXPECT_EQ(argv[3], text);
  const auto mac = notifier_argv("/usr/bin/osascript", "t", "say \"hi\"");
  ASSERT_EQ(mac.size(), 3u);
  EXPECT_EQ(mac[1], "-e");
  EXPECT_EQ(mac[2], "display notification \"say \\\"hi\\\"\" with title \"t\"");
  const auto custom = notifier_argv("/tmp/record.sh", "title", "text");
  EXPECT_EQ(custom, (std::vector<std::string>{"/tmp/record.sh", "title", "text"}));
}

}  // namespace
}  // namespace agentworks::bridge
