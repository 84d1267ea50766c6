#include "store/store_failure.hpp"

#include "store/database/database.hpp"

namespace agentworks::server {

ErrorCode store_failure_code(const std::exception& e) {
  if (const auto* err = dynamic_cast<const Error*>(&e)) return err->code();
  const auto* failed = dynamic_cast<const db::DatabaseError*>(&e);
  if (failed == nullptr) return ErrorCode::internal;
  return failed->kind() == db::Failure::unavailable ? ErrorCode::unavailable : ErrorCode::internal;
}

void rethrow_store_failure() {
  try {
    throw;
  } catch (const db::DatabaseError& e) {
    if (store_failure_code(e) == ErrorCode::unavailable) throw Error(ErrorCode::unavailable, kStoreUnavailableMessage);
    throw;
  }
}

}  // namespace agentworks::server
