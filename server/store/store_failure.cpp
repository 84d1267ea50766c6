#include "store/store_failure.hpp"

#include <sqlite3.h>

#include "agentworks/sqlite.hpp"

namespace agentworks::server {

ErrorCode store_failure_code(const std::exception& e) {
  if (const auto* err = dynamic_cast<const Error*>(&e)) return err->code();
  const auto* sq = dynamic_cast<const sql::SqliteError*>(&e);
  if (sq == nullptr) return ErrorCode::internal;
  switch (sq->code() & 0xff) {
    case SQLITE_FULL:
    case SQLITE_IOERR:
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_READONLY:
    case SQLITE_CANTOPEN:
    case SQLITE_NOMEM:
      return ErrorCode::unavailable;
    default:
      return ErrorCode::internal;
  }
}

void rethrow_store_failure() {
  try {
    throw;
  } catch (const sql::SqliteError& e) {
    if (store_failure_code(e) == ErrorCode::unavailable) throw Error(ErrorCode::unavailable, kStoreUnavailableMessage);
    throw;
  }
}

}  // namespace agentworks::server
