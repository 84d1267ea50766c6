// The SQLite wrapper keeps statements prepared between uses (common/include/agentworks/sqlite.hpp): a Stmt with
// SQL text seen before reuses the prepared statement, and nothing of its last use shows: no bindings, no open
// read. Two Stmts with the same text at once are independent, and SQL built at run time cannot grow the cache
// without end (the bridge once prepared every statement of a take anew).
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "agentworks/sqlite.hpp"

namespace agentworks::sql {
namespace {

class StatementCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("aw-stmtcache-" + std::to_string(::getpid()) + "-" +
                                                      ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "store.db").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // The statements the connection has prepared and not finalized.
  static int prepared(Db& db) {
    int n = 0;
    for (sqlite3_stmt* s = next(db, nullptr); s != nullptr; s = next(db, s)) ++n;
    return n;
  }
  static bool any_busy(Db& db) {
    for (sqlite3_stmt* s = next(db, nullptr); s != nullptr; s = next(db, s))
      if (sqlite3_stmt_busy(s) != 0) return true;
    return false;
  }
  static sqlite3_stmt* next(Db& db, sqlite3_stmt* after) { return sqlite3_next_stmt(db.handle(), after); }
  static void fill(Db& db) {
    db.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)");
    for (int i = 1; i <= 5; ++i) {
      Stmt(db, "INSERT INTO t(id, v) VALUES (?1, ?2)").bind(1, i).bind(2, "v" + std::to_string(i)).run();
    }
  }

  std::filesystem::path dir_;
  std::string path_;
};

TEST_F(StatementCacheTest, TheSameTextIsPreparedOnce) {
  Db db(path_);
  fill(db);
  const int before = prepared(db);
  for (int i = 1; i <= 5; ++i) {
    Stmt s(db, "SELECT v FROM t WHERE id = ?1");
    s.bind(1, i);
    ASSERT_TRUE(s.step());
    EXPECT_EQ(s.text(0), "v" + std::to_string(i));
  }
  EXPECT_EQ(prepared(db), before + 1);
}

TEST_F(StatementCacheTest, AReusedStatementKeepsNoBindingAndNoOpenRead) {
  Db db(path_);
  fill(db);
  {
    Stmt s(db, "SELECT count(*) FROM t WHERE v = ?1 OR ?1 IS NULL");
    s.bind(1, "v3");
    ASSERT_TRUE(s.step());
    EXPECT_EQ(s.int64(0), 1);
  }
  {
    Stmt s(db, "SELECT count(*) FROM t WHERE v = ?1 OR ?1 IS NULL");  // unbound: NULL, not last use's "v3"
    ASSERT_TRUE(s.step());
    EXPECT_EQ(s.int64(0), 5);
  }
  {
    Stmt rows(db, "SELECT id FROM t ORDER BY id");
    ASSERT_TRUE(rows.step());  // four rows left unread
  }
  EXPECT_FALSE(any_busy(db));
  // With no read left open, another connection's checkpoint can copy everything back and restart the WAL.
  Db other(path_);
  int log = -1;
  int copied = -1;
  ASSERT_EQ(sqlite3_wal_checkpoint_v2(other.handle(), nullptr, SQLITE_CHECKPOINT_TRUNCATE, &log, &copied), SQLITE_OK);
  EXPECT_EQ(log, 0);
}

TEST_F(StatementCacheTest, TwoStatementsWithTheSameTextAtOnceAreIndependent) {
  Db db(path_);
  fill(db);
  Stmt outer(db, "SELECT id FROM t ORDER BY id");
  std::string pairs;
  while (outer.step()) {
    Stmt inner(db, "SELECT id FROM t ORDER BY id");
    int inner_rows = 0;
    while (inner.step()) ++inner_rows;
    pairs += std::to_string(outer.int64(0)) + ":" + std::to_string(inner_rows) + " ";
  }
  EXPECT_EQ(pairs, "1:5 2:5 3:5 4:5 5:5 ");
}

TEST_F(StatementCacheTest, SqlBuiltAtRunTimeDoesNotGrowTheCacheWithoutEnd) {
  Db db(path_);
  fill(db);
  for (int i = 0; i < 1000; ++i) {
    Stmt s(db, "SELECT " + std::to_string(i) + " FROM t LIMIT 1");
    ASSERT_TRUE(s.step());
    EXPECT_EQ(s.int64(0), i);
  }
  EXPECT_LE(prepared(db), 300);
}

TEST_F(StatementCacheTest, AFailedPrepareThrowsAndLeavesTheCacheUsable) {
  Db db(path_);
  fill(db);
  EXPECT_THROW(Stmt(db, "SELECT nope FROM t"), SqliteError);
  EXPECT_THROW(Stmt(db, "SELECT nope FROM t"), SqliteError);
  Stmt s(db, "SELECT count(*) FROM t");
  ASSERT_TRUE(s.step());
  EXPECT_EQ(s.int64(0), 5);
}

TEST_F(StatementCacheTest, TransactionsRollBackAndCommitThroughCachedStatements) {
  Db db(path_);
  fill(db);
  {
    Transaction tx(db);
    Stmt(db, "DELETE FROM t").run();
  }  // rolled back
  {
    Transaction tx(db);
    Stmt(db, "DELETE FROM t WHERE id = 1").run();
    tx.commit();
  }
  Stmt s(db, "SELECT count(*) FROM t");
  ASSERT_TRUE(s.step());
  EXPECT_EQ(s.int64(0), 4);
}

}  // namespace
}  // namespace agentworks::sql
