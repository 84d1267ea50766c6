// Small SHA-256 (FIPS 180-4) used to store bearer tokens only as hashes and to fingerprint submissions.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace agentworks {

std::array<std::uint8_t, 32> sha256(std::string_view data);
// Lower-case hex of sha256(data).
std::string sha256_hex(std::string_view data);

}  // namespace agentworks
