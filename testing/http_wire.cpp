#include "testing/http_wire.hpp"

#include <algorithm>
#include <cctype>

namespace agentworks::testing {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); });
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::optional<ResponseHead> parse_response_head(std::string_view head) {
  ResponseHead result;
  std::size_t line_end = head.find('\n');
  std::string_view status_line = trim(head.substr(0, line_end));
  // "HTTP/1.1 200 OK"
  if (status_line.size() < 12 || (status_line.substr(0, 9) != "HTTP/1.1 " && status_line.substr(0, 9) != "HTTP/1.0 "))
    return std::nullopt;
  const std::size_t space = status_line.find(' ');
  if (space == std::string_view::npos || space + 4 > status_line.size()) return std::nullopt;
  if (space + 4 < status_line.size() && status_line[space + 4] != ' ') return std::nullopt;
  int status = 0;
  for (std::size_t i = space + 1; i < space + 4; ++i) {
    const char c = status_line[i];
    if (c < '0' || c > '9') return std::nullopt;
    status = status * 10 + (c - '0');
  }
  result.status = status;
  while (line_end != std::string_view::npos) {
    const std::size_t start = line_end + 1;
    line_end = head.find('\n', start);
    const std::string_view line =
        trim(head.substr(start, line_end == std::string_view::npos ? std::string_view::npos : line_end - start));
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string name = lower(trim(line.substr(0, colon)));
    result.headers[name] = std::string(trim(line.substr(colon + 1)));
    const std::string value = lower(trim(line.substr(colon + 1)));
    if (name == "content-length") {
      std::size_t length = 0;
      for (char c : value) {
        if (c < '0' || c > '9') return std::nullopt;
        length = length * 10 + static_cast<std::size_t>(c - '0');
      }
      result.content_length = length;
    } else if (name == "transfer-encoding") {
      result.chunked = value.find("chunked") != std::string::npos;
    } else if (name == "connection") {
      result.close = value.find("close") != std::string::npos;
    }
  }
  return result;
}

}  // namespace agentworks::testing
