// The five messaging actions (ack, reply, send, read, peers) as bridge requests for the caller's exact attached
// session, and the text that tells an agent or a person what happened. Shared by the MCP tools and
// `agentworks bridge message …`, so both say the same thing.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "mcp/caller_identity.hpp"

namespace agentworks::cli::mcp {

// Sends {"op": op, ...fields, ...session selector} to the bridge and returns its success answer.
// Throws Error: the bridge's code, unreachable when no bridge runs (with how to start it).
nlohmann::json call_messaging_op(const std::string& op, nlohmann::json fields, const CallerIdentity& caller,
                                 const std::optional<std::string>& thread_id);

// One paragraph (or a list, for read and peers) describing a success answer of `op`.
std::string describe_answer(const std::string& op, const nlohmann::json& answer);

// The text for a failure: the error's message, plus what to do when the chat is not attached.
std::string describe_error(const std::string& code, const std::string& message);

}  // namespace agentworks::cli::mcp
