// The bridge's session registry stays bounded: registrations of processes that have ended are
// dropped a few at a time as new ones arrive, and a cap evicts the least recently reported; a live process keeps
// its registration and a re-report refreshes it.
#include "state/session_registry.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <set>

namespace agentworks::bridge {
namespace {

process::ProcessKey proc(long pid) { return {pid, "start" + std::to_string(pid)}; }
SessionKey session(long n) { return {"claude", "sess-" + std::to_string(n)}; }

TEST(SessionRegistry, DropsEndedProcessesOnInsert) {
  std::set<long> alive;
  SessionRegistry r([&alive](const process::ProcessKey& k) { return alive.count(k.pid) != 0; }, 100000);
  alive.insert(1);
  r.record(proc(1), session(1));
  // 10,000 short-lived hook processes come and go; the registry does not keep them.
  for (long pid = 1000; pid < 11000; ++pid) {
    alive.insert(pid);
    r.record(proc(pid), session(pid));
    alive.erase(pid);
  }
  EXPECT_LE(r.size(), 3u);
  ASSERT_TRUE(r.session_for(proc(1)));  // the live one stays
  EXPECT_EQ(r.session_for(proc(1))->session_id, "sess-1");
  EXPECT_EQ(r.process_for(session(1)), proc(1));
  // Same pid, another start time: a different process, never matched.
  EXPECT_FALSE(r.session_for(process::ProcessKey{1, "other"}));
}

TEST(SessionRegistry, CapEvictsTheLeastRecentlyReported) {
  SessionRegistry r([](const process::ProcessKey&) { return true; }, 3);
  r.record(proc(1), session(1));
  r.record(proc(2), session(2));
  r.record(proc(3), session(3));
  r.record(proc(1), session(11));  // a re-report: most recent again, and the new session replaces the old
  r.record(proc(4), session(4));
  EXPECT_EQ(r.size(), 3u);
  EXPECT_FALSE(r.session_for(proc(2)));
  ASSERT_TRUE(r.session_for(proc(1)));
  EXPECT_EQ(r.session_for(proc(1))->session_id, "sess-11");
  EXPECT_TRUE(r.session_for(proc(3)));
  EXPECT_TRUE(r.session_for(proc(4)));
  EXPECT_FALSE(r.process_for(session(1)));
}

TEST(SessionRegistry, RealProcessCheckKeepsThisProcess) {
  SessionRegistry r;
  const auto me = process::key_of(static_cast<long>(::getpid()));
  if (!me) GTEST_SKIP() << "no /proc";
  r.record(*me, session(1));
  for (long i = 0; i < 50; ++i) r.record(process::ProcessKey{999999 - i, "1"}, session(i));  // never running
  EXPECT_TRUE(r.session_for(*me));
  EXPECT_LE(r.size(), 3u);
}

}  // namespace
}  // namespace agentworks::bridge
