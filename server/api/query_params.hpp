// Integer query parameters with a range, refused with the range in the message.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "request/handler.hpp"

namespace agentworks::server::api {

std::optional<std::string> query_text(const Ctx& c, const char* key);
std::int64_t int_query(const Ctx& c, const char* key, std::int64_t lo, std::int64_t hi, std::int64_t fallback);

}  // namespace agentworks::server::api
