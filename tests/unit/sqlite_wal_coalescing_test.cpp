// WAL writes gathered into one write call per commit (common/include/agentworks/sqlite_wal_coalescing.hpp):
// a commit of many pages costs a few write calls, not two per page; another connection on the default VFS reads
// every commit the moment it returns (so nothing a commit published was still held back); a database reopened
// after the writer went away without a checkpoint recovers every commit from the WAL file. The server's
// system calls per message.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "agentworks/sqlite.hpp"
#include "agentworks/sqlite_wal_coalescing.hpp"

namespace agentworks::sql {
namespace {

class WalWriteCoalescingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("aw-walco-" + std::to_string(::getpid()) + "-" +
                                                      ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "store.db").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // One transaction of `rows` rows of 1,000 bytes each: about a page per 3 rows, plus the index's pages.
  static void insert_rows(Db& db, int first, int rows) {
    db.exec("BEGIN IMMEDIATE");
    Stmt insert(db, "INSERT INTO t(id, body) VALUES (?, ?)");
    for (int i = first; i < first + rows; ++i) {
      insert.bind(1, static_cast<std::int64_t>(i));
      insert.bind(2, std::string(1000, static_cast<char>('a' + i % 26)));
      insert.run();
      insert.reset();
    }
    db.exec("COMMIT");
  }
  static std::int64_t count_rows(Db& db) {
    Stmt count(db, "SELECT count(*) FROM t");
    EXPECT_TRUE(count.step());
    return count.int64(0);
  }

  std::filesystem::path dir_;
  std::string path_;
};

TEST_F(WalWriteCoalescingTest, ACommitOfManyPagesIsAFewWriteCalls) {
  Db writer(path_);
  writer.exec("PRAGMA synchronous=NORMAL; PRAGMA wal_autocheckpoint=0;"
              "CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT); CREATE INDEX t_body ON t(body)");
  insert_rows(writer, 0, 10);  // the first commit starts the WAL: its header is a write of its own
  const WalWriteCounts before = wal_write_counts();
  for (int commit = 0; commit < 10; ++commit) insert_rows(writer, 100 + commit * 100, 100);
  const WalWriteCounts after = wal_write_counts();
  const auto asked = after.asked - before.asked;
  const auto written = after.written - before.written;
  // 10 commits of about 200 pages each (rows and their index): two writes asked per page, and the gathered
  // writes carry up to 120 KiB (about 30 frames) each.
  EXPECT_GT(asked, 2000U);
  EXPECT_GE(written, 10U) << "each commit is written";
  EXPECT_LE(written * 40, asked) << "asked " << asked << ", written " << written;
}

TEST_F(WalWriteCoalescingTest, AnotherConnectionReadsEveryCommitAtOnce) {
  Db writer(path_);
  writer.exec("PRAGMA synchronous=NORMAL; PRAGMA wal_autocheckpoint=0;"
              "CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT); CREATE INDEX t_body ON t(body)");
  Db reader(path_, nullptr);  // SQLite's own VFS
  for (int commit = 0; commit < 20; ++commit) {
    insert_rows(writer, commit * 50, 50);
    ASSERT_EQ(count_rows(reader), (commit + 1) * 50) << "commit " << commit << " was not in the WAL file";
  }
  Stmt check(reader, "PRAGMA integrity_check");
  ASSERT_TRUE(check.step());
  EXPECT_EQ(check.text(0), "ok");
}

TEST_F(WalWriteCoalescingTest, AWriterKilledAfterItsCommitsLeavesThemAllInTheWal) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The writer ends without closing the database, as a killed server would: no checkpoint, the WAL stays.
    try {
      auto* writer = new Db(path_);
      writer->exec("PRAGMA synchronous=NORMAL; PRAGMA wal_autocheckpoint=0;"
                   "CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT)");
      for (int commit = 0; commit < 5; ++commit) insert_rows(*writer, commit * 40, 40);
    } catch (...) {
      ::_exit(1);
    }
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ASSERT_GT(std::filesystem::file_size(path_ + "-wal"), 0U);
  Db reopened(path_, nullptr);
  EXPECT_EQ(count_rows(reopened), 200);
}

}  // namespace
}  // namespace agentworks::sql
