#include "api/query_params.hpp"

#include <charconv>

#include "agentworks/error.hpp"

namespace agentworks::server::api {

std::optional<std::string> query_text(const Ctx& c, const char* key) {
  auto it = c.query.find(key);
  if (it == c.query.end()) return std::nullopt;
  return it->second;
}

std::int64_t int_query(const Ctx& c, const char* key, std::int64_t lo, std::int64_t hi, std::int64_t fallback) {
  const auto v = query_text(c, key);
  if (!v) return fallback;
  std::int64_t n = 0;
  const auto [ptr, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
  if (v->empty() || ec != std::errc() || ptr != v->data() + v->size() || n < lo || n > hi)
    throw Error(ErrorCode::bad_request,
                std::string(key) + " must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
  return n;
}

}  // namespace agentworks::server::api
