// The NOTIFY payload replicas send each other: ids only, every payload under the limit, and a
// payload parses back to what was committed.
#include <gtest/gtest.h>

#include <string>

#include "store/replica_notice.hpp"
#include "store/store.hpp"

using namespace agentworks::server;

TEST(ReplicaNotice, RoundTrip) {
  StoreEvents ev;
  ev.messages.emplace_back();
  ev.fenced.emplace_back("att_1", "superseded");
  ev.revoked_connections.push_back("conn_2");
  ev.calls_changed.push_back("call_3");
  const auto payloads = notice_payloads("rep_a", ev);
  ASSERT_EQ(payloads.size(), 1u);
  const auto n = parse_notice(payloads[0]);
  ASSERT_TRUE(n);
  EXPECT_EQ(n->replica, "rep_a");
  EXPECT_TRUE(n->messages);
  ASSERT_EQ(n->fenced.size(), 1u);
  EXPECT_EQ(n->fenced[0].first, "att_1");
  EXPECT_EQ(n->fenced[0].second, "superseded");
  EXPECT_EQ(n->revoked_connections, std::vector<std::string>{"conn_2"});
  EXPECT_EQ(n->calls_changed, std::vector<std::string>{"call_3"});
}

TEST(ReplicaNotice, NothingToSayIsNoPayload) {
  EXPECT_TRUE(notice_payloads("rep_a", StoreEvents{}).empty());
}

TEST(ReplicaNotice, ManyIdsSplitUnderTheLimit) {
  StoreEvents ev;
  for (int i = 0; i < 2000; ++i) ev.calls_changed.push_back("call_" + std::to_string(i) + std::string(20, 'x'));
  const auto payloads = notice_payloads("rep_a", ev, 1000);
  ASSERT_GT(payloads.size(), 1u);
  std::size_t ids = 0;
  for (const auto& p : payloads) {
    EXPECT_LE(p.size(), 1000u);
    const auto n = parse_notice(p);
    ASSERT_TRUE(n);
    EXPECT_EQ(n->replica, "rep_a");
    ids += n->calls_changed.size();
  }
  EXPECT_EQ(ids, 2000u);
}

TEST(ReplicaNotice, ForeignPayloadIsIgnored) {
  EXPECT_FALSE(parse_notice("hello"));
  EXPECT_FALSE(parse_notice(""));
}
