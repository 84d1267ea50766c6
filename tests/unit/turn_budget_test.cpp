// The loop-turn budget that paces the bridge's stream chunks (daemon/lib/platform/turn_budget.hpp): one unit per
// turn, waiters resumed one per later turn in arrival order, a cancelled or closed waiter never resumed.
#include <gtest/gtest.h>
#include <uv.h>

#include <string>
#include <vector>

#include "platform/turn_budget.hpp"
#include "support/uv_loop_test.hpp"

namespace agentworks::bridge {
namespace {

class TurnBudgetTest : public agentworks::testing::UvLoopTest {
 protected:
  // One loop turn without blocking.
  void turn() { uv_run(&loop_, UV_RUN_NOWAIT); }
};

TEST_F(TurnBudgetTest, OneUnitPerTurn) {
  TurnBudget budget(&loop_);
  EXPECT_TRUE(budget.try_take());
  EXPECT_FALSE(budget.try_take());
  turn();
  EXPECT_TRUE(budget.try_take());
  EXPECT_FALSE(budget.try_take());
  budget.close();
  turn();
}

TEST_F(TurnBudgetTest, WaitersResumeOnePerTurnInOrder) {
  TurnBudget budget(&loop_);
  std::vector<std::string> resumed;
  int a = 0, b = 0, c = 0;
  ASSERT_TRUE(budget.try_take());
  // Each resumed waiter takes the unit, as a resumed stream does when curl hands its chunk over.
  budget.wait(&a, [&] { resumed.push_back(budget.try_take() ? "a" : "a-refused"); });
  budget.wait(&b, [&] { resumed.push_back(budget.try_take() ? "b" : "b-refused"); });
  budget.wait(&c, [&] { resumed.push_back(budget.try_take() ? "c" : "c-refused"); });
  budget.cancel(&b);
  EXPECT_TRUE(resumed.empty());  // never in the turn that found the unit taken
  turn();
  EXPECT_EQ(resumed, (std::vector<std::string>{"a"}));
  turn();
  EXPECT_EQ(resumed, (std::vector<std::string>{"a", "c"}));
  for (int i = 0; i < 3; ++i) turn();
  EXPECT_EQ(resumed.size(), 2u);
  budget.close();
  turn();
}

TEST_F(TurnBudgetTest, ClosedBudgetResumesNobodyAndNoLongerPaces) {
  TurnBudget budget(&loop_);
  bool resumed = false;
  ASSERT_TRUE(budget.try_take());
  budget.wait(&resumed, [&] { resumed = true; });
  budget.close();
  turn();
  EXPECT_FALSE(resumed);
  EXPECT_TRUE(budget.try_take());
  EXPECT_TRUE(budget.try_take());
}

}  // namespace
}  // namespace agentworks::bridge
