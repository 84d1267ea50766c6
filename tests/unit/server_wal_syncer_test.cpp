// The WAL flush off the event loop (server/store/wal_syncer.hpp): one flush covers every request made before it
// started, outcomes come in order with their errors, and the wake descriptor tells the loop.
#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "store/wal_syncer.hpp"

namespace agentworks::server {
namespace {

// A flush that blocks until the test opens the gate, and counts how often it ran.
struct GatedFlush {
  std::mutex mutex;
  std::condition_variable cv;
  bool open = false;
  bool entered = false;
  int runs = 0;
  int fail_with = 0;

  int operator()() {
    std::unique_lock<std::mutex> lock(mutex);
    entered = true;
    cv.notify_all();
    cv.wait(lock, [&] { return open; });
    ++runs;
    open = false;
    const int err = fail_with;
    fail_with = 0;
    return err;
  }
  void wait_entered() {
    std::unique_lock<std::mutex> lock(mutex);
    cv.wait(lock, [&] { return entered; });
    entered = false;
  }
  void let_one_through(int err = 0) {
    std::lock_guard<std::mutex> lock(mutex);
    open = true;
    fail_with = err;
    cv.notify_all();
  }
};

bool readable(int fd, int timeout_ms) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, timeout_ms) == 1;
}

TEST(WalSyncerTest, RequestsMadeDuringAFlushShareTheNextOne) {
  GatedFlush gate;
  WalSyncer syncer([&gate] { return gate(); });
  EXPECT_EQ(syncer.request(), 1u);
  gate.wait_entered();  // the first flush runs and holds
  EXPECT_EQ(syncer.request(), 2u);
  EXPECT_EQ(syncer.request(), 3u);
  EXPECT_EQ(syncer.request(), 4u);
  gate.let_one_through();
  syncer.wait_for(1);
  gate.wait_entered();  // the second flush covers 2-4 at once
  gate.let_one_through();
  syncer.wait_for(4);
  ASSERT_TRUE(readable(syncer.wake_fd(), 10'000));
  const auto outcomes = syncer.collect();
  ASSERT_EQ(outcomes.size(), 2u);
  EXPECT_EQ(outcomes[0].through, 1u);
  EXPECT_EQ(outcomes[1].through, 4u);
  EXPECT_TRUE(outcomes[0].ok && outcomes[1].ok);
  EXPECT_EQ(gate.runs, 2) << "three requests during a flush must need one more flush, not three";
  EXPECT_FALSE(readable(syncer.wake_fd(), 0)) << "collect() must clear the wake descriptor";
}

TEST(WalSyncerTest, AFailedFlushFailsOnlyTheTicketsItCovered) {
  GatedFlush gate;
  WalSyncer syncer([&gate] { return gate(); });
  syncer.request();
  gate.wait_entered();
  syncer.request();
  gate.let_one_through(EIO);
  gate.wait_entered();
  gate.let_one_through();
  syncer.wait_for(2);
  const auto outcomes = syncer.collect();
  ASSERT_EQ(outcomes.size(), 2u);
  EXPECT_FALSE(outcomes[0].ok);
  EXPECT_EQ(outcomes[0].through, 1u);
  EXPECT_NE(outcomes[0].error.find("Input/output"), std::string::npos) << outcomes[0].error;
  EXPECT_TRUE(outcomes[1].ok);
  EXPECT_EQ(outcomes[1].through, 2u);
}

TEST(WalSyncerTest, StoppingFinishesTheRequestedFlushFirst) {
  std::atomic<int> runs{0};
  {
    GatedFlush gate;
    WalSyncer syncer([&] {
      const int err = gate();
      ++runs;
      return err;
    });
    syncer.request();
    gate.wait_entered();
    syncer.request();
    gate.let_one_through();
    gate.wait_entered();
    gate.let_one_through();
  }  // the destructor joins only after the flush covering ticket 2
  EXPECT_EQ(runs.load(), 2);
}

class WalFileFlush : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("aw-walsync-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(WalFileFlush, FlushesTheFileAndRefusesAReplacedOrMissingOne) {
  const auto wal = dir_ / "server.db-wal";
  auto flush_missing = file_flush(wal);
  EXPECT_EQ(flush_missing(), ENOENT) << "no WAL file is an error, not a flush of nothing";
  std::ofstream(wal) << "frames";
  auto flush = file_flush(wal);
  EXPECT_EQ(flush(), 0);
  std::ofstream(wal, std::ios::app) << "more frames";
  EXPECT_EQ(flush(), 0);
  std::ofstream(dir_ / "other") << "x";
  std::filesystem::rename(dir_ / "other", wal);
  EXPECT_EQ(flush(), ESTALE) << "a replaced WAL file is not the one the commits wrote";
}

}  // namespace
}  // namespace agentworks::server
