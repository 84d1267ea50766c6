// Parsing of an HTTP/1.x request head (request line and header lines) into what the server needs.
// Strict on purpose: anything ambiguous (folded lines, bare CR, a space before the colon, Transfer-Encoding,
// conflicting Content-Length) is refused with a JSON error rather than guessed at.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "agentworks/error.hpp"

namespace agentworks::server {

inline constexpr std::size_t kMaxHeadBytes = 64 * 1024;  // request line + headers
inline constexpr std::size_t kMaxHeaderLines = 100;

struct RequestHead {
  std::string method;
  std::string target;  // origin-form, e.g. /v1/messages?after=0
  int minor_version = 1;
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased, values trimmed
  std::size_t content_length = 0;
  bool keep_alive = true;
  bool expect_continue = false;

  // The first header with this (lower-case) name.
  const std::string* header(std::string_view lower_name) const;
};

struct HeadError {
  ErrorCode code;
  std::string message;
};

// Where the head in `bytes` ends (just past its empty line); nullopt when it is not complete yet.
std::optional<std::size_t> find_head_end(std::string_view bytes);

// `text` is the complete head including its empty line.
std::variant<RequestHead, HeadError> parse_request_head(std::string_view text);

}  // namespace agentworks::server
