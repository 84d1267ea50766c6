// The ONE route table of the server: method, path pattern, who may call, allowed query parameters,
// handler and help text. The dispatcher (http/dispatcher.cpp) is the one choke point that applies it.
#pragma once

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "http/response.hpp"
#include "store/records.hpp"

namespace agentworks::server {

class Store;
class Hub;

enum class Auth {
  none,   // anyone (health)
  any,    // any live connection (login or child)
  login,  // login connections only; a child gets `forbidden`
  call,   // a function execution's per-call secret (checked by the handler against the call in the path)
};

struct Ctx {
  Store& store;
  Hub& hub;
  const Connection& caller;
  const std::vector<std::string>& params;  // the {…} segments of the pattern, in order
  const std::map<std::string, std::string>& query;
  const nlohmann::json& body;  // the request object; {} for routes without a body
  const std::optional<std::string>& last_event_id;
  const std::string& bearer;  // Auth::call routes: the presented secret; empty otherwise
};

using Handler = Response (*)(Ctx&);

struct Route {
  const char* method;
  const char* pattern;  // e.g. "/v1/agents/{name}"
  Auth auth;
  bool has_body;        // POST routes: body must be a JSON object
  std::vector<std::string> query;  // allowed query parameters
  Handler handler;
  const char* help;
};

const std::vector<Route>& routes();

// Finds the route for method + path, filling params; nullptr when none matches.
const Route* match_route(std::string_view method, std::string_view path, std::vector<std::string>& params);

}  // namespace agentworks::server
