// The store's SQL connection on each engine: commands and writes queued for the next round trip (PostgreSQL
// sends them in one pipeline) run in order, and each failure is reported to the request that queued it or ends
// the transaction, never lost. Run on SQLite and, as pg.StoreDatabase.*, on PostgreSQL (R-T1).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>

#include "store/database/postgres_database.hpp"
#include "store/database/sqlite_database.hpp"
#include "testing/test_store.hpp"
#include "testing/temp_home.hpp"

namespace fs = std::filesystem;
using namespace agentworks::server;

namespace {

class StoreDatabase : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = agentworks::testing::make_temp_dir("aw-database-test-", "/tmp");
    pg_ = agentworks::testing::store_is_postgresql();
    db_ = pg_ ? db::open_postgresql(agentworks::testing::test_store_url(dir_)) : db::open_sqlite(dir_ / "scratch.db");
    db_->exec("CREATE TABLE scratch(k INTEGER PRIMARY KEY, v TEXT NOT NULL)");
  }
  void TearDown() override {
    db_.reset();
    if (pg_) agentworks::testing::release_test_store(dir_);
    fs::remove_all(dir_);
  }
  void insert_soon(int k, const std::string& v) {
    auto s = db_->prepare("INSERT INTO scratch(k, v) VALUES(?, ?)");
    s->bind(1, k).bind(2, v).run_soon();
  }
  std::string values() {
    auto s = db_->prepare("SELECT v FROM scratch ORDER BY k");
    std::string out;
    while (s->step()) out += s->text(0) + ";";
    return out;
  }

  fs::path dir_;
  bool pg_ = false;
  std::unique_ptr<db::Database> db_;
};

TEST_F(StoreDatabase, QueuedCommandsAndWritesRunInOrderBeforeTheNextAnswer) {
  db_->begin_write();
  EXPECT_TRUE(db_->transaction_open());
  db_->exec_soon("SAVEPOINT req");
  insert_soon(1, "a");
  insert_soon(2, "b");
  EXPECT_EQ(values(), "a;b;");  // the SELECT's round trip carried BEGIN, the lock, SAVEPOINT and both INSERTs
  db_->exec_soon("RELEASE req");
  db_->exec("COMMIT");
  EXPECT_FALSE(db_->transaction_open());
  EXPECT_EQ(values(), "a;b;");
}

TEST_F(StoreDatabase, AQueuedWritesFailureIsReportedBySettleAndItsSavepointStillRollsBack) {
  db_->begin_write();
  insert_soon(1, "kept");
  db_->exec_soon("SAVEPOINT req");
  insert_soon(2, "undone");
  try {
    insert_soon(1, "duplicate key");  // SQLite fails here, PostgreSQL at settle()
    db_->settle();
    FAIL() << "the duplicate key was not reported";
  } catch (const db::DatabaseError& e) {
    EXPECT_EQ(e.kind(), db::Failure::constraint) << e.what();
  }
  ASSERT_TRUE(db_->transaction_open());
  db_->exec("ROLLBACK TO req; RELEASE req");
  insert_soon(3, "after");
  db_->exec("COMMIT");
  EXPECT_EQ(values(), "kept;after;");
}

TEST_F(StoreDatabase, SettleWithNothingQueuedSendsNothing) {
  db_->begin_write();
  db_->exec_soon("SAVEPOINT req");
  db_->settle();  // only a command waits: it goes with the next statement
  insert_soon(1, "a");
  db_->settle();
  db_->exec_soon("RELEASE req");
  db_->exec("COMMIT");
  EXPECT_EQ(values(), "a;");
}

TEST_F(StoreDatabase, AFailedQueuedCommandIsReportedAndCommitsNothing) {
  db_->begin_write();
  insert_soon(1, "never");
  bool reported = false;
  try {
    db_->exec_soon("RELEASE no_such_savepoint");  // SQLite fails here, PostgreSQL with the next statement
    (void)values();
  } catch (const db::DatabaseError&) {
    reported = true;
  }
  EXPECT_TRUE(reported);
  if (pg_) {
    EXPECT_FALSE(db_->transaction_open()) << "a failed queued command must end the transaction";
  }
  if (db_->transaction_open()) db_->exec("ROLLBACK");
  EXPECT_EQ(values(), "");
}

TEST_F(StoreDatabase, DroppedStatementsNeverRunButQueuedCommandsDo) {
  db_->begin_write();
  db_->exec_soon("SAVEPOINT req");
  insert_soon(1, "dropped");
  db_->drop_queued_statements();
  db_->exec("ROLLBACK TO req; RELEASE req");  // the savepoint was queued before the statement and still exists
  insert_soon(2, "kept");
  db_->exec("COMMIT");
  EXPECT_EQ(values(), "kept;");
}

TEST_F(StoreDatabase, ARollbackBeforeAnythingWasSentLeavesNoTransaction) {
  db_->begin_write();
  db_->exec_soon("SAVEPOINT req");
  db_->exec("ROLLBACK");
  EXPECT_FALSE(db_->transaction_open());
  insert_soon(1, "outside");
  db_->settle();
  EXPECT_EQ(values(), "outside;");
}

}  // namespace
