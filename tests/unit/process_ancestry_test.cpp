#include "agentworks/process_ancestry.hpp"

#include <unistd.h>

#include <gtest/gtest.h>

namespace agentworks::process {
namespace {

TEST(ProcessAncestry, ParsesStatWithSpacesAndParensInComm) {
  const std::string stat =
      "4242 (we(ir) d) S 17 4242 4242 0 -1 4194304 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 10 18446744073709551615";
  const auto info = parse_stat(stat);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->pid, 4242);
  EXPECT_EQ(info->comm, "we(ir) d");
  EXPECT_EQ(info->ppid, 17);
  EXPECT_EQ(info->start, "987654");
}

TEST(ProcessAncestry, RejectsMalformedStat) {
  EXPECT_FALSE(parse_stat(""));
  EXPECT_FALSE(parse_stat("12 comm S 1"));
  EXPECT_FALSE(parse_stat("x (a) S 1 2 3"));
  EXPECT_FALSE(parse_stat("12 (a) S 1 2 3"));  // too few fields
}

TEST(ProcessAncestry, ReadsThisProcess) {
  const auto me = read_process(static_cast<long>(getpid()));
  ASSERT_TRUE(me);
  EXPECT_EQ(me->pid, getpid());
  EXPECT_EQ(me->ppid, getppid());
  const auto key = key_of(static_cast<long>(getpid()));
  ASSERT_TRUE(key);
  EXPECT_EQ(key->start, me->start);
  EXPECT_FALSE(read_process(0));
}

TEST(ProcessAncestry, ShellsAreIntermediate) {
  EXPECT_TRUE(is_intermediate("sh"));
  EXPECT_TRUE(is_intermediate("bash"));
  EXPECT_FALSE(is_intermediate("claude"));
  EXPECT_FALSE(is_intermediate("node"));
  EXPECT_FALSE(is_intermediate("codex"));
}

}  // namespace
}  // namespace agentworks::process
