// The one set of error codes shared by server, bridge, hook and CLI.
// Wire form: {"error":{"code":"<code_name>","message":"<what to do>"}}. See docs/protocol.md.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <span>
#include <string_view>

namespace agentworks {

// The one list of error codes: the enum, their names, HTTP statuses and exit codes all come from it, so a code
// cannot be added to one and forgotten in another. Each row: X(name, HTTP status, exit code, when).
// docs/protocol.md's table shows the same rows (checked by a unit test).
#define AGENTWORKS_ERROR_CODES(X)                                                                          \
  X(bad_request, 400, exit_usage, "malformed JSON, wrong type, unknown field, bad value")                 \
  X(invalid_name, 400, exit_usage, "agent name breaks the name rules")                                    \
  X(invalid_message, 400, exit_usage, "message empty or over 20,000 characters")                          \
  X(cursor_mismatch, 400, exit_usage, "a cursor from the other cursor space")                             \
  X(invalid_input, 400, exit_usage, "function arguments break the inputs schema (names the schema path)")  \
  X(invalid_declaration, 400, exit_usage, "a Crew's functions.json is refused (line and reason)")           \
  X(payload_too_large, 413, exit_usage, "request body over the limit")                                    \
  X(unauthenticated, 401, exit_auth, "missing, unknown or revoked token")                                 \
  X(forbidden, 403, exit_auth, "not allowed for this name, account or connection kind")                   \
  X(messaging_disabled, 403, exit_auth, "the Crew's messaging is switched off: it takes no messages")     \
  X(not_found, 404, exit_not_found, "unknown route, id or name (or not visible to the caller)")           \
  X(expired, 410, exit_not_found, "inbox expired (metadata only, no bodies)")                             \
  X(conflict, 409, exit_limit, "state conflict (name taken, submission id reused differently)")           \
  X(fenced, 409, exit_auth, "attachment superseded, detached or revoked")                                 \
  X(inbox_full, 409, exit_limit, "inbox history full and its oldest message still pending")               \
  X(rate_limited, 429, exit_limit, "40 messages per hour per conversation")                               \
  X(limit_reached, 429, exit_limit, "registration / inbox / quota caps")                                  \
  X(busy, 503, exit_limit, "temporarily unable (retry later)")                                            \
  X(unavailable, 503, exit_unreachable, "the server cannot store right now (disk full, store down)")      \
  X(internal, 500, exit_failure, "server-side failure")                                                   \
  X(untrusted_certificate, 502, exit_unreachable, "client side: the server's TLS certificate is not trusted") \
  X(unreachable, 503, exit_unreachable, "client side: server or bridge cannot be reached")                \
  X(usage, 400, exit_usage, "client side: bad command line")

enum class ErrorCode {
#define AGENTWORKS_ERROR_ENUM(name, http, exit, when) name,
  AGENTWORKS_ERROR_CODES(AGENTWORKS_ERROR_ENUM)
#undef AGENTWORKS_ERROR_ENUM
};

std::string_view code_name(ErrorCode code);
std::optional<ErrorCode> parse_code(std::string_view name);
int http_status(ErrorCode code);

// Documented process exit codes (docs/protocol.md, "Exit codes").
enum ExitCode : int {
  exit_ok = 0,
  exit_failure = 1,      // internal or unexpected
  exit_usage = 2,        // usage and bad input
  exit_auth = 3,         // unauthenticated / forbidden / fenced
  exit_not_found = 4,    // not found / expired
  exit_limit = 5,        // rate limited, limit reached, inbox full, conflict, busy
  exit_unreachable = 6,  // server or bridge unreachable
};
int exit_code(ErrorCode code);

// Each exit code with what it means, for the manual pages' EXIT STATUS (docs/protocol.md, "Exit codes").
struct ExitClass {
  int code;
  std::string_view meaning;
};
std::span<const ExitClass> exit_classes();

// Thrown by library code; carries a stable code and an actionable message.
class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, std::string message) : std::runtime_error(std::move(message)), code_(code) {}
  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

}  // namespace agentworks
