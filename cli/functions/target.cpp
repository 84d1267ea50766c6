#include "functions/target.hpp"

#include "agentworks/environment.hpp"
#include "functions/questions.hpp"
#include "functions/routes.hpp"
#include "session.hpp"

namespace agentworks::cli::functions {

FunctionsTarget functions_target(const Context& ctx, int wait_seconds) {
  if (env::get(env::Var::execution_call_id) != nullptr || env::get(env::Var::execution_call_token) != nullptr) {
    const ExecutionBinding b = execution_binding("`agentworks functions` inside a function execution");
    return {client_with_wait(b.server, b.token, wait_seconds, b.ca_file), "/v1/calls/" + url_encode(b.call_id)};
  }
  const Config config = require_login(ctx);
  return {client_with_wait(config.server_url, config.token, wait_seconds, config.ca_file), ""};
}

}  // namespace agentworks::cli::functions
