// What a failed store write means for the caller. A full disk, an I/O error, a locked/read-only database or a
// lost PostgreSQL connection is the store's trouble, not the request's: the answer is the retryable `unavailable` (503) and the request was
// not accepted. Anything else (corruption, a bug) stays `internal`.
#pragma once

#include <exception>

#include "agentworks/error.hpp"

namespace agentworks::server {

// unavailable for a DatabaseError of kind unavailable (store/database/) and an Error that already says so;
// internal otherwise.
ErrorCode store_failure_code(const std::exception& e);

// Inside a catch block: rethrows the current exception, a store failure of the `unavailable` kind as
// Error(unavailable, kStoreUnavailableMessage) so the dispatcher answers 503 instead of 500.
[[noreturn]] void rethrow_store_failure();

// The answer to a request whose write was not stored.
inline constexpr const char* kStoreUnavailableMessage =
    "the server cannot store right now (disk full, I/O error or database unreachable); nothing was accepted, retry later "
    "(resending with the same submission_id is safe)";

}  // namespace agentworks::server
