// The one set of error codes shared by server, bridge, hook and CLI.
// Wire form: {"error":{"code":"<code_name>","message":"<what to do>"}}. See docs/protocol.md.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace agentworks {

enum class ErrorCode {
  bad_request,        // 400 malformed JSON, wrong type, unknown field, bad value
  invalid_name,       // 400 agent name breaks the name rules
  invalid_message,    // 400 message empty or over 20,000 characters
  cursor_mismatch,    // 400 a cursor from the other cursor space
  payload_too_large,  // 413 request body over the limit
  unauthenticated,    // 401 missing, unknown or revoked token
  forbidden,          // 403 not allowed for this name, account or connection kind
  not_found,          // 404 unknown route, id or name (or not visible to the caller)
  expired,            // 410 inbox expired (metadata only, no bodies)
  conflict,           // 409 state conflict (name taken, submission id reused differently)
  fenced,             // 409 attachment superseded, detached or revoked
  inbox_full,         // 409 inbox history full and its oldest message still pending
  rate_limited,       // 429 40 messages per hour per conversation
  limit_reached,      // 429 registration / inbox / quota caps
  busy,               // 503 temporarily unable (retry later)
  unavailable,        // 503 the server cannot store right now (disk full, store down); retry later
  internal,           // 500 server-side failure
  unreachable,        // client side: server or bridge cannot be reached
  usage,              // client side: bad command line
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

// Thrown by library code; carries a stable code and an actionable message.
class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, std::string message) : std::runtime_error(std::move(message)), code_(code) {}
  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

}  // namespace agentworks
