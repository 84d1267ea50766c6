// Where a `functions …` command sends its request. Inside a function execution (its call's environment is set,
// R-D4) it acts as that execution: the execution's own routes with its per-call secret, never the login of the
// computer's user, so an execution's authority never grows. Anywhere else: the person's login.
#pragma once

#include <string>

#include "agentworks/server_client.hpp"
#include "command.hpp"

namespace agentworks::cli::functions {

struct FunctionsTarget {
  ServerClient client;
  std::string scope;  // "" for the login; "/v1/calls/CALL_ID" for an execution
  // A route of the people's API ("/v1/crews/X/calls", "/v1/calls/ID/cancel") as this target reaches it.
  std::string path(const std::string& route) const { return scope.empty() ? route : scope + route.substr(3); }
  bool execution() const { return !scope.empty(); }
};

// `wait_seconds`: the longest long poll the request may park (the client's timeout covers it).
FunctionsTarget functions_target(const Context& ctx, int wait_seconds = 0);

}  // namespace agentworks::cli::functions
