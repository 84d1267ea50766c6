// MCP protocol versions this server speaks (initialize handshake, not the stateless revision).
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace agentworks::cli::mcp {

inline constexpr std::array<std::string_view, 4> kSupportedVersions = {"2024-11-05", "2025-03-26", "2025-06-18",
                                                                      "2025-11-25"};

// The client's version when supported, else the newest this server supports (the client may then disconnect).
std::string negotiate_version(std::string_view requested);

}  // namespace agentworks::cli::mcp
