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
#define AGENTWORKS_ERROR_ROW(name, http, exit, when) CodeInfo{ErrorCode::name, #name, http, exit},
    AGENTWORKS_ERROR_CODES(AGENTWORKS_ERROR_ROW)
#undef AGENTWORKS_ERROR_ROW
};

// The rows are generated in enum order, so the enum value is the index.
const CodeInfo& info(ErrorCode code) { return kCodes.at(static_cast<std::size_t>(code)); }

}  // namespace

std::string_view code_name(ErrorCode code) { return info(code).name; }
int http_status(ErrorCode code) { return info(code).http; }
int exit_code(ErrorCode code) { return info(code).exit; }

std::span<const ExitClass> exit_classes() {
  static constexpr ExitClass kClasses[] = {
      {exit_ok, "Success."},
      {exit_failure, "An internal or unexpected error."},
      {exit_usage, "Usage or bad input (the message says what to change)."},
      {exit_auth, "Not logged in, not allowed, or this chat's attachment was superseded (fenced)."},
      {exit_not_found, "Not found, or expired."},
      {exit_limit, "A limit, the rate, a conflict, or busy: try later or change the request."},
      {exit_unreachable, "The server or the bridge cannot be reached."},
  };
  return kClasses;
}

std::optional<ErrorCode> parse_code(std::string_view name) {
  for (const auto& c : kCodes) {
    if (c.name == name) return c.code;
  }
  return std::nullopt;
}

}  // namespace agentworks
