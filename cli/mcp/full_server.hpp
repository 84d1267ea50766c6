// `agentworks mcp serve --full`: the stdio MCP server of the person's opt-in full connection. It speaks for their
// CLI login (never a chat's attachment, unlike the credential-less messaging server of server.hpp) and offers one
// tool per action (full_tools.hpp). Reads requests from `in` until EOF; writes only protocol messages to `out`; logs
// to stderr.
#pragma once

#include <istream>
#include <ostream>

#include "mcp/full_tools.hpp"

namespace agentworks::cli::mcp {

// Returns when `in` ends. Never throws.
void serve_full(std::istream& in, std::ostream& out, const LoginSource& login);

}  // namespace agentworks::cli::mcp
