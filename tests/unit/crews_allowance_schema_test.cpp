// A data directory from before Crew allowances (R-F1): opening it adds the crews.allowance column, and
// its Crews read as the default allowance.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

#include "agentworks/sqlite.hpp"
#include "declaration/agent_allowance.hpp"
#include "store/database/sqlite_database.hpp"
#include "store/schema.hpp"
#include "testing/temp_home.hpp"

namespace fs = std::filesystem;
using namespace agentworks;

TEST(CrewsAllowanceSchema, OldCrewsRowsGetTheDefaultAllowance) {
  const fs::path dir = agentworks::testing::make_temp_dir("aw-allow-schema-", "/tmp");
  {
    sql::Db db((dir / "server.db").string());
    // The crews table as it was before the allowance column.
    db.exec(
        "CREATE TABLE crews(crew_id TEXT PRIMARY KEY, account_id TEXT NOT NULL, name TEXT NOT NULL, "
        "name_fold TEXT NOT NULL, dir TEXT NOT NULL, declaration TEXT NOT NULL, created_at INTEGER NOT NULL, "
        "reloaded_at INTEGER NOT NULL, last_sweep_at INTEGER NOT NULL DEFAULT 0, removed INTEGER NOT NULL DEFAULT 0);"
        "INSERT INTO crews(crew_id, account_id, name, name_fold, dir, declaration, created_at, reloaded_at) "
        "VALUES('crw_1', 'acc_1', 'api', 'api', '/x', '{\"functions\":[]}', 1, 1);");
  }
  {
    const auto store_db = server::db::open_sqlite(dir / "server.db");
    server::prepare_sqlite_schema(*store_db);
    server::prepare_sqlite_schema(*store_db);  // a second open finds the column and adds nothing
  }
  {
    sql::Db db((dir / "server.db").string());
    sql::Stmt s(db, "SELECT allowance FROM crews WHERE crew_id = 'crw_1'");
    ASSERT_TRUE(s.step());
    const auto a = agentworks::functions::allowance_from_json(s.text(0));
    EXPECT_EQ(a.claude_tools, agentworks::functions::AgentAllowance{}.claude_tools);
    EXPECT_EQ(a.codex_sandbox, "workspace-write");
  }
  fs::remove_all(dir);
}
