// Standard base64 (RFC 4648, with padding) decoding for the file pages' content_base64.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace agentworks::cli::functions {

// The bytes, or nullopt when `text` is not valid padded base64.
std::optional<std::string> decode_base64(std::string_view text);

}  // namespace agentworks::cli::functions
