#include "store/cursor.hpp"

#include <charconv>

#include "agentworks/error.hpp"

namespace agentworks::server {

std::pair<char, std::int64_t> parse_cursor(const std::string& text) {
  if (text == "0") return {0, 0};
  std::int64_t n = -1;
  const char* begin = text.data() + (text.empty() ? 0 : 1);
  const char* end = text.data() + text.size();
  const char space = text.empty() ? '\0' : text[0];
  const auto [ptr, ec] = std::from_chars(begin, end, n);
  if ((space != 'm' && space != 'i') || begin == end || ec != std::errc() || ptr != end || n < 0)
    throw Error(ErrorCode::bad_request, "after: expected a cursor like m42 or i7 (from next_cursor), or 0");
  return {space, n};
}

}  // namespace agentworks::server
