// JSON text written straight into a string, for the objects the server sends most (messages on streams and in
// pages), where building an nlohmann::json tree first cost more than the rest of the reply.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentworks::server {

// `s` as a JSON string literal: quotes, backslashes and control characters escaped, valid UTF-8 copied as it is,
// each byte that does not start a valid sequence replaced with U+FFFD, so any stored text makes valid JSON.
void append_json_string(std::string& out, std::string_view s);
void append_json_string_or_null(std::string& out, const std::optional<std::string>& s);
void append_json_int_or_null(std::string& out, const std::optional<std::int64_t>& v);

}  // namespace agentworks::server
