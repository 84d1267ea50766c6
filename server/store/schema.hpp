// The store's tables. SQLite (the embedded default) is created and upgraded in place when the server opens
// it; a PostgreSQL store is shared by replicas, so its schema changes only by `agentworks-server migrate`,
// versioned, and a server refuses a database whose version is not its own.
#pragma once

#include "store/database/database.hpp"

namespace agentworks::server {

// The PostgreSQL schema version this binary reads and writes.
inline constexpr int kPostgresSchemaVersion = 8;

void prepare_sqlite_schema(db::Database& db);

// Creates or upgrades to kPostgresSchemaVersion, idempotently, under the write lock (one migrate at a time);
// refuses a database newer than this binary. Returns the version found before.
int migrate_postgresql_schema(db::Database& db);

// At server start: a usage error unless the database is at kPostgresSchemaVersion.
void check_postgresql_schema(db::Database& db);

}  // namespace agentworks::server
