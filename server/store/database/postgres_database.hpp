// The PostgreSQL engine of the store: a shared database that several server replicas use at once.
// Write transactions are serialised across replicas by one transaction-level advisory lock, so every rule the
// store checks by reading rows (limits, dedupe, fencing) holds exactly as with SQLite's single writer, and
// message sequence numbers become visible in the order they were assigned. A lost connection is re-opened on
// the next statement outside a transaction; statements are prepared again on the new connection.
#pragma once

#include <memory>
#include <string>

#include "store/database/database.hpp"

namespace agentworks::server::db {

// url: a libpq connection URI (postgresql://USER@HOST:PORT/DB?...). Throws DatabaseError(unavailable) when
// the database cannot be reached.
std::unique_ptr<Database> open_postgresql(const std::string& url);

// Whether --store names PostgreSQL (postgresql:// or postgres://).
bool is_postgresql_url(const std::string& url);

// host, port and database of a URL for messages and logs, without user secrets.
std::string describe_postgresql_url(const std::string& url);

// The advisory lock key every write transaction (and migrate) holds.
inline constexpr long long kWriteLockKey = 0x6177776b7300;  // "awwks"

}  // namespace agentworks::server::db
