// Unpredictable ids and tokens from the kernel's CSPRNG (getrandom).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace agentworks {

// `bytes` random bytes as lower-case hex.
std::string random_hex(std::size_t bytes);
// prefix + "_" + 24 hex characters, e.g. "msg_3f9a…". Used for every server and bridge id.
std::string new_id(std::string_view prefix);

}  // namespace agentworks
