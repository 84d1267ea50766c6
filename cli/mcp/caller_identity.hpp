// Who a messaging call acts for, as the bridge resolves it (docs/protocol.md "Session resolution"): the caller's
// own provider ancestor process (pid + start time), and for Codex the host's thread id in addition. Used by
// `agentworks mcp serve` and `agentworks bridge message …`; neither ever reads the CLI login (R-C2) nor lets a
// model argument choose a session (R-C8).
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "agentworks/process_ancestry.hpp"

namespace agentworks::cli::mcp {

struct CallerIdentity {
  std::optional<process::ProcessKey> process;  // the provider ancestor, computed once
  std::string provider;                        // "" = whatever the hook registration says; else checked
};

// The identity of this process (provider_ancestor()); `provider` as given (validated, may be empty).
CallerIdentity current_caller(const std::string& provider);

// Adds the session selector fields (process, provider, session_id) to a bridge request. `thread_id` is the chat
// its host named: the Codex thread (host metadata or CODEX_THREAD_ID) or the Pi session (`mcp serve
// --session-id`, from the Pi extension). Throws Error(not_found) when the provider process is unknown, Error(bad_request) when a Codex call
// has no valid thread id.
void add_session_selector(nlohmann::json& request, const CallerIdentity& caller,
                          const std::optional<std::string>& thread_id);

// A thread id as the host sent it: 1-200 printable ASCII. Throws Error(bad_request) otherwise.
std::string checked_thread_id(const std::string& thread_id, const std::string& source);

}  // namespace agentworks::cli::mcp
