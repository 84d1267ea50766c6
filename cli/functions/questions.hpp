// An execution asking its own call's caller (docs/protocol.md "Questions"): the binding to the call from the
// environment the server gives every execution, the question's POST and the long-poll wait for its answer. Shared
// by `agentworks functions ask` and the `request_input` tool of `agentworks mcp serve --call`, so both send the
// same requests.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace agentworks::cli::functions {

// The call an execution belongs to: AGENTWORKS_SERVER, AGENTWORKS_CALL_ID, AGENTWORKS_CALL_TOKEN.
struct ExecutionBinding {
  std::string server;
  std::string call_id;
  std::string token;
  std::string ca_file;  // AGENTWORKS_SERVER_CA_FILE: set by a TLS server (its own certificate)
};

// Reads the binding; a missing variable is Error(usage) naming it and `who` ("`agentworks functions ask`").
ExecutionBinding execution_binding(std::string_view who);

struct Answered {
  std::string request_id;
  std::string answer;
};

// Asks `question` (with the JSON Schema object its answer must satisfy, when `schema` is set) and blocks until the
// caller answers, long-polling 25 s at a time. A full server (busy) is waited out; anything else (the call closed:
// unauthenticated, the server gone: unreachable, a refused question) is thrown as the Error.
Answered ask_and_wait(const ExecutionBinding& binding, const std::string& question,
                      const std::optional<nlohmann::json>& schema);

}  // namespace agentworks::cli::functions
