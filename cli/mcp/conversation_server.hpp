// `agentworks mcp serve --conversation`: the stdio MCP server of a Crew agent's turn (R-K2), bound to one
// conversation by the environment the server gives the turn. The agent's text and thinking reach nobody; its two
// tools are how it speaks: send_message posts into the conversation, no_reply declines on purpose (docs/crews.md,
// docs/mcp.md "The conversation's server"). Both go to the turn routes (/v1/turns/{conversation_id}/…) with the
// per-turn secret, which stops working when the turn ends.
#pragma once

#include <istream>
#include <ostream>
#include <string>

namespace agentworks::cli::mcp {

// The turn a server belongs to: AGENTWORKS_SERVER, AGENTWORKS_CONVERSATION_ID, AGENTWORKS_TURN_TOKEN and, from a
// TLS server, AGENTWORKS_SERVER_CA_FILE.
struct ConversationBinding {
  std::string server;
  std::string conversation_id;
  std::string token;
  std::string ca_file;
};

// Reads the binding; a missing variable is Error(usage) naming it.
ConversationBinding conversation_binding();

// "/v1/turns/{conversation_id}": the base of the turn's routes.
std::string turn_path(const ConversationBinding& binding);

// Serves until `in` ends. Never throws.
void serve_conversation(std::istream& in, std::ostream& out, const ConversationBinding& binding);

}  // namespace agentworks::cli::mcp
