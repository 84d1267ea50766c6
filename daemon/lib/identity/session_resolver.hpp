// Which attached session a messaging request (MCP child, `agentworks bridge message`, hook) acts for
// (docs/protocol.md "Session resolution"). Exactly one of three ways, never by name or recency (R-H12, R-C6-R-C8):
//   - provider + session_id, no process: the caller names the exact session (hooks, tests, older clients);
//   - process only (+ provider as a check): the session the hook registration of exactly that provider process
//     (pid + start time) reported; refused for Codex, whose one process hosts many threads;
//   - process + provider + session_id: the session must be registered for, or stored with, that process key
//     (Codex: the host's thread id together with the caller's provider process).
// Anything unresolvable is not_found with a message telling the person to attach the chat.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "state/journal.hpp"

namespace agentworks::bridge {

class SessionLookup;

// The attachment the request acts for (any state; callers check fenced/offline). Throws Error.
AttachmentRow resolve_attachment(SessionLookup& bridge, const nlohmann::json& req);

// The same, refusing a fenced attachment (fenced) — for the ops that act on the server as the agent.
AttachmentRow resolve_usable_attachment(SessionLookup& bridge, const nlohmann::json& req);

}  // namespace agentworks::bridge
