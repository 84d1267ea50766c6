// `agentworks-server migrate` and the schema version of a PostgreSQL store (R-T1): migrate creates the
// schema and is idempotent; a server refuses a database that migrate did not prepare, naming the command, and both
// refuse a database newer than the binary. Runs in the pg.* registration only.
#include <gtest/gtest.h>

#include <string>

#include "testing/binaries.hpp"
#include "testing/pg_admin.hpp"
#include "testing/process.hpp"
#include "testing/temp_home.hpp"
#include "testing/test_store.hpp"

namespace agentworks::testing {
namespace {

class StoreMigrate : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!store_is_postgresql()) GTEST_SKIP() << "the schema version is PostgreSQL's: run as pg.StoreMigrate.*";
    name_ = "aw_migrate_" + std::to_string(::getpid());
    pg_drop_database(test_pg_server_url(), name_);
    pg_create_database(test_pg_server_url(), name_);
    url_ = pg_url_with_database(test_pg_server_url(), name_);
  }
  void TearDown() override {
    if (!name_.empty()) pg_drop_database(test_pg_server_url(), name_);
  }
  ProcessResult server(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {server_binary()};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_process(argv);
  }
  // Starts a server on the database; it must refuse before listening.
  ProcessResult start_refused() {
    return server({"--listen", "127.0.0.1:0", "--data", (dir_.path() / "data").string(), "--store", url_});
  }

  TempDir dir_{"aw-migrate-"};
  std::string name_;
  std::string url_;
};

TEST_F(StoreMigrate, MigrateCreatesTheSchemaOnceAndTheServerNeedsIt_R_T1) {
  const ProcessResult before = start_refused();
  EXPECT_EQ(before.exit_code, 2) << before.out << before.err;
  EXPECT_NE(before.err.find("agentworks-server migrate --store"), std::string::npos) << before.err;

  const ProcessResult first = server({"migrate", "--store", url_});
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  EXPECT_NE(first.out.find("schema version 0 -> 8"), std::string::npos) << first.out;
  const ProcessResult again = server({"migrate", "--store", url_});
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_NE(again.out.find("already"), std::string::npos) << again.out;
  EXPECT_EQ(pg_query_value(url_, "SELECT version FROM agentworks_schema"), "8");
  EXPECT_EQ(pg_query_value(url_, "SELECT COUNT(*) FROM agentworks_schema"), "1");

  const ProcessResult account = server({"account", "add", "alice", "--store", url_});
  ASSERT_EQ(account.exit_code, 0) << account.out << account.err;
  EXPECT_EQ(pg_query_value(url_, "SELECT name FROM accounts WHERE name_fold = 'alice'"), "alice");
}

// Version 1 had no calls.rowid: migrate numbers the calls already stored by age, and a new call comes after them.
TEST_F(StoreMigrate, VersionOneCallsAreNumberedByAgeForTheCallList) {
  ASSERT_EQ(server({"migrate", "--store", url_}).exit_code, 0);
  // Back to version 1's calls table (what migrations 2 to 8 added, taken away), holding two calls stored newest
  // first.
  pg_execute(url_, "DROP INDEX calls_caller_account; DROP INDEX calls_caller_conn; DROP INDEX calls_crew;"
                   " ALTER TABLE calls DROP COLUMN rowid, DROP COLUMN cancel_requested_at,"
                   " DROP COLUMN cancel_requested_by, DROP COLUMN caller_agent_id, DROP COLUMN notify_agent_id,"
                   " DROP COLUMN parent_call_id, DROP COLUMN depth, DROP COLUMN sent_answer,"
                   " DROP COLUMN reply_state, DROP COLUMN notify_conversation_id;"
                   " ALTER TABLE call_inputs DROP COLUMN withdrawn;"
                   " ALTER TABLE messages DROP COLUMN kind, DROP COLUMN call_id, DROP COLUMN call_status,"
                   " DROP COLUMN reply_state; ALTER TABLE agents DROP COLUMN communication, DROP COLUMN nudge,"
                   " DROP COLUMN crew_id; ALTER TABLE crews DROP COLUMN messaging;"
                   " DROP TABLE agent_grants; DROP TABLE wakeups; DROP TABLE wakeup_pauses; DROP TABLE crew_sessions;"
                   " DROP INDEX conversations_receiver;"
                   " ALTER TABLE calls DROP COLUMN served_by, DROP COLUMN declaration_hash;"
                   " ALTER TABLE crews DROP COLUMN runner_host, DROP COLUMN runner_conn, DROP COLUMN runner_since,"
                   " DROP COLUMN runner_seen_at; DROP TABLE call_files; DROP TABLE call_file_chunks;"
                   " UPDATE agentworks_schema SET version = 1");
  for (const char* row : {"('call_new', 2000)", "('call_old', 1000)"})
    pg_execute(url_, std::string("INSERT INTO calls(call_id, crew_id, caller_account, caller_conn, function,"
                                 " arguments, fingerprint, status, token_hash, created_at, updated_at)"
                                 " SELECT v.id, 'crw_x', 'acc_x', 'con_x', 'f', '{}', 'f', 'completed', 'h', v.t, v.t"
                                 " FROM (VALUES ") + row + ") AS v(id, t)");
  const ProcessResult up = server({"migrate", "--store", url_});
  ASSERT_EQ(up.exit_code, 0) << up.out << up.err;
  EXPECT_NE(up.out.find("schema version 1 -> 8"), std::string::npos) << up.out;
  EXPECT_EQ(pg_query_value(url_, "SELECT rowid FROM calls WHERE call_id = 'call_old'"), "1");
  EXPECT_EQ(pg_query_value(url_, "SELECT rowid FROM calls WHERE call_id = 'call_new'"), "2");
  pg_execute(url_, "INSERT INTO calls(call_id, crew_id, caller_account, caller_conn, function, arguments, fingerprint,"
                   " status, token_hash, created_at, updated_at)"
                   " VALUES('call_next', 'crw_x', 'acc_x', 'con_x', 'f', '{}', 'f', 'running', 'h', 3000, 3000)");
  EXPECT_EQ(pg_query_value(url_, "SELECT rowid FROM calls WHERE call_id = 'call_next'"), "3");
  EXPECT_EQ(pg_query_value(url_, "SELECT version FROM agentworks_schema"), "8");
}

TEST_F(StoreMigrate, ADatabaseNewerThanTheBinaryIsRefused_R_T1) {
  ASSERT_EQ(server({"migrate", "--store", url_}).exit_code, 0);
  pg_execute(url_, "UPDATE agentworks_schema SET version = 99");
  const ProcessResult start = start_refused();
  EXPECT_EQ(start.exit_code, 2) << start.err;
  EXPECT_NE(start.err.find("newer than this agentworks-server"), std::string::npos) << start.err;
  const ProcessResult migrate = server({"migrate", "--store", url_});
  EXPECT_EQ(migrate.exit_code, 2) << migrate.err;
  EXPECT_NE(migrate.err.find("newer than this agentworks-server"), std::string::npos) << migrate.err;
  EXPECT_EQ(pg_query_value(url_, "SELECT version FROM agentworks_schema"), "99") << "a refused migrate changed it";
}

TEST_F(StoreMigrate, BadStoreUrlsAreUsageErrors_R_T1) {
  const ProcessResult not_pg = server({"migrate", "--store", "mysql://db/x"});
  EXPECT_EQ(not_pg.exit_code, 2) << not_pg.err;
  EXPECT_NE(not_pg.err.find("postgresql://"), std::string::npos) << not_pg.err;
  // Nothing listens on this port: the database is unreachable, which is retryable (exit 6), not a crash.
  const ProcessResult unreachable = server({"migrate", "--store", "postgresql://agentworks@127.0.0.1:1/x"});
  EXPECT_EQ(unreachable.exit_code, 6) << unreachable.err;
  EXPECT_NE(unreachable.err.find("check --store"), std::string::npos) << unreachable.err;
}

}  // namespace
}  // namespace agentworks::testing
