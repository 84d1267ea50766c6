#include "agentworks/error.hpp"

#include <array>

namespace agentworks {
namespace {

struct CodeInfo {
  ErrorCode code;
  std::string_view name;
  int http;
  int exit;
};

constexpr std::array kCodes = {
    CodeInfo{ErrorCode::bad_request, "bad_request", 400, exit_usage},
    CodeInfo{ErrorCode::invalid_name, "invalid_name", 400, exit_usage},
    CodeInfo{ErrorCode::invalid_message, "invalid_message", 400, exit_usage},
    CodeInfo{ErrorCode::cursor_mismatch, "cursor_mismatch", 400, exit_usage},
    CodeInfo{ErrorCode::payload_too_large, "payload_too_large", 413, exit_usage},
    CodeInfo{ErrorCode::unauthenticated, "unauthenticated", 401, exit_auth},
    CodeInfo{ErrorCode::forbidden, "forbidden", 403, exit_auth},
    CodeInfo{ErrorCode::not_found, "not_found", 404, exit_not_found},
    CodeInfo{ErrorCode::expired, "expired", 410, exit_not_found},
    CodeInfo{ErrorCode::conflict, "conflict", 409, exit_limit},
    CodeInfo{ErrorCode::fenced, "fenced", 409, exit_auth},
    CodeInfo{ErrorCode::inbox_full, "inbox_full", 409, exit_limit},
    CodeInfo{ErrorCode::rate_limited, "rate_limited", 429, exit_limit},
    CodeInfo{ErrorCode::limit_reached, "limit_reached", 429, exit_limit},
    CodeInfo{ErrorCode::busy, "busy", 503, exit_limit},
    CodeInfo{ErrorCode::unavailable, "unavailable", 503, exit_unreachable},
    CodeInfo{ErrorCode::internal, "internal", 500, exit_failure},
    CodeInfo{ErrorCode::unreachable, "unreachable", 503, exit_unreachable},
    CodeInfo{ErrorCode::usage, "usage", 400, exit_usage},
};

const CodeInfo& info(ErrorCode code) {
  for (const auto& c : kCodes) {
    if (c.code == code) return c;
  }
  return kCodes[16];  // internal: the table lists every code, so this is unreachable
}

}  // namespace

std::string_view code_name(ErrorCode code) { return info(code).name; }
int http_status(ErrorCode code) { return info(code).http; }
int exit_code(ErrorCode code) { return info(code).exit; }

std::optional<ErrorCode> parse_code(std::string_view name) {
  for (const auto& c : kCodes) {
    if (c.name == name) return c.code;
  }
  return std::nullopt;
}

}  // namespace agentworks
