#include "mcp/protocol_version.hpp"

namespace agentworks::cli::mcp {

std::string negotiate_version(std::string_view requested) {
  for (const auto v : kSupportedVersions) {
    if (v == requested) return std::string(v);
  }
  return std::string(kSupportedVersions.back());
}

}  // namespace agentworks::cli::mcp
