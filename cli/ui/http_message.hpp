// The HTTP/1.1 subset the local status page speaks: one request per connection, a bounded head, a body only by
// Content-Length. Pure functions, unit-tested and fuzzed without a socket.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentworks::cli::ui {

struct HttpRequest {
  std::string method;
  std::string path;   // the target before '?', percent-encoded as sent
  std::string query;  // after '?', "" when none
  std::map<std::string, std::string> headers;  // lower-case names; a repeated header keeps its first value
  std::string body;

  std::string header(const std::string& lower_name) const;
};

enum class HeadStatus { incomplete, complete, bad };

struct HeadParse {
  HeadStatus status = HeadStatus::incomplete;
  std::size_t head_bytes = 0;      // through the blank line, when complete
  std::size_t content_length = 0;  // when complete
  HttpRequest request;             // when complete
  std::string problem;             // when bad: what was wrong, for the 400 answer
};

// Parses the request head at the start of `buffer`; `bad` when it is malformed or longer than `max_head` bytes.
HeadParse parse_head(std::string_view buffer, std::size_t max_head);

// The value of `name` in a query string (percent- and '+'-decoded); nullopt when absent or badly encoded.
std::optional<std::string> query_param(std::string_view query, std::string_view name);

// The value of cookie `name` in a Cookie header, "" when absent.
std::string cookie_value(std::string_view cookie_header, std::string_view name);

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::vector<std::pair<std::string, std::string>> headers;  // extra ones, e.g. Set-Cookie, Location
  std::string body;
};

// The whole response with the headers every answer of the page carries (no caching, no sniffing, no framing,
// same-origin resources only) and Connection: close.
std::string serialize(const HttpResponse& response);

// A plain-text answer with only a status line's reason as its body.
HttpResponse plain(int status);

}  // namespace agentworks::cli::ui
