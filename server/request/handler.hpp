// What a request handler receives and returns: the context the dispatcher (http/dispatcher.cpp) builds from a
// matched route, and who may call a route. The route table (http/route_table.hpp) names handlers by this type.
#pragma once

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "request/presence.hpp"
#include "request/response.hpp"
#include "store/records.hpp"

namespace agentworks::server {

class Store;

enum class Auth {
  none,   // anyone (health)
  any,    // any live connection (login or child)
  login,  // login connections only; a child gets `forbidden`
  call,   // a function execution's per-call secret (checked by the handler against the call in the path)
  turn,   // a Crew agent's per-turn secret (checked by the handler against the conversation in the path, R-K2)
  runner, // a served Crew's runner connection (R-R2); such a connection reaches no other route
};

struct Ctx {
  Store& store;
  Presence& presence;
  const Connection& caller;
  const std::vector<std::string>& params;  // the {…} segments of the pattern, in order
  const std::map<std::string, std::string>& query;
  const nlohmann::json& body;  // the request object; {} for routes without a body
  const std::optional<std::string>& last_event_id;
  const std::string& bearer;  // Auth::call and Auth::turn routes: the presented secret; empty otherwise
};

using Handler = Response (*)(Ctx&);

}  // namespace agentworks::server
