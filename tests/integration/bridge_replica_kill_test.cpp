// Two server replicas on one PostgreSQL database behind one balancer (the pg2 run, AGENTWORKS_TEST_STORE=
// postgresql-replicas): one replica is killed with SIGKILL at a random moment of the delivery, the bridge's stream
// reconnects through the balancer to the other, catches up by sequence, and every message is offered exactly once
// (R-T4; R-B5 never offered twice). The killed replica comes back and the next round kills a
// random one again.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>

#include "support/bridge_fixture.hpp"
#include "testing/wait.hpp"

namespace agentworks::testing {
namespace {

class BridgeReplicaKill : public BridgeTest {};

TEST_F(BridgeReplicaKill, AReplicaKilledMidDeliveryLosesAndDoublesNothing_RT4_RB5) {
  start_server();
  if (!server_->has_replicas()) GTEST_SKIP() << "needs two replicas: AGENTWORKS_TEST_STORE=postgresql-replicas";
  register_agent(owner(), "worker", {"--purpose", "Builds things"});
  start_bridge();
  attach("chat-one", "reviewer");
  ASSERT_TRUE(wait_connected("chat-one"));

  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  std::set<std::string> sent;
  std::set<std::string> offered;
  // Takes until every sent message was offered. A take right after a kill may answer `held` (its release check
  // met the dead replica): those wait and come with a later take, never twice.
  const auto take_all = [&] {
    const bool all = wait_until([&] {
      const json answer = take("chat-one");
      for (const auto& m : answer["messages"]) {
        const std::string id = m["message_id"].get<std::string>();
        EXPECT_TRUE(sent.count(id) == 1) << "offered a message never sent: " << id;
        EXPECT_TRUE(offered.insert(id).second) << "offered twice: " << id;
      }
      return offered.size() == sent.size();
    }, std::chrono::seconds(30));
    EXPECT_TRUE(all) << offered.size() << " of " << sent.size() << " offered";
  };
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    for (auto k = 1 + rng() % 4; k > 0; --k) sent.insert(send("before the kill, round " + std::to_string(round)));
    // Sometimes the chat takes some before the kill, sometimes the kill lands while they wait in the cache or are
    // still on their way from the server.
    if (rng() % 2 == 0) take_all();
    const int victim = static_cast<int>(rng() % 2);
    server_->kill_replica(victim);
    for (auto k = 1 + rng() % 3; k > 0; --k) {
      sent.insert(send("after the kill, round " + std::to_string(round)));
    }
    ASSERT_TRUE(wait_pending("chat-one", static_cast<long>(sent.size() - offered.size()), std::chrono::seconds(40)))
        << "the bridge did not catch up through the surviving replica: " << status_of("chat-one").dump();
    take_all();
    EXPECT_EQ(offered, sent);
    server_->start_replica(victim);
  }
  ASSERT_TRUE(wait_connected("chat-one"));
  const std::string last = send("after every replica came back");
  sent.insert(last);
  ASSERT_TRUE(wait_pending("chat-one", 1));
  take_all();
  EXPECT_EQ(offered, sent);
  EXPECT_TRUE(take("chat-one")["messages"].empty());
}

}  // namespace
}  // namespace agentworks::testing
