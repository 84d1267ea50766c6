// The stdio MCP server of `agentworks mcp serve`: initialize, ping, tools/list, tools/call; credential-less, every
// tool goes to the bridge for the caller's exact attached session (R-C1, R-C2). Reads requests from `in` until
// EOF; writes only protocol messages to `out`; logs to stderr.
#pragma once

#include <istream>
#include <ostream>
#include <string>

namespace agentworks::cli::mcp {

struct ServeOptions {
  std::string provider;        // --provider: "" (from the hook registration) or e.g. "codex"
  bool claude_channel = false;  // --claude-channel
  std::string session_id;       // --session-id: the Pi session this server serves (the Pi extension starts one each)
};

// Returns when `in` ends. Never throws.
void serve(std::istream& in, std::ostream& out, const ServeOptions& options);

}  // namespace agentworks::cli::mcp
