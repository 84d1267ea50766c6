// Standard base64 (RFC 4648, with padding): binary file pages travel as `content_base64` on the wire.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace agentworks {

std::string base64_encode(std::string_view bytes);
// nullopt for anything that is not canonical padded base64.
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace agentworks
