// `agentworks mcp serve --call`: the stdio MCP server a function's agent execution gets, bound to that one call by
// the environment the server gives every execution (functions/questions.hpp). Its one tool, `request_input`,
// parks a question as a pending input of the call and returns the caller's answer (docs/mcp.md "The call's
// server"). A waiting tool call runs on its own thread so the loop keeps reading: pings are answered meanwhile,
// and when the client closes stdin the process ends at once instead of waiting for an answer nobody will read.
#pragma once

#include <istream>
#include <ostream>

#include "functions/questions.hpp"

namespace agentworks::cli::mcp {

// Returns when `in` ends with no question waiting; with one waiting it ends the process (exit 0). Never throws.
// `explicit_communication` (R-X7): the function talks explicitly; send_message and no_reply are served too.
void serve_call(std::istream& in, std::ostream& out, const functions::ExecutionBinding& binding,
                bool explicit_communication = false);

}  // namespace agentworks::cli::mcp
