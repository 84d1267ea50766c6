// The ONE route table of the server: method, path pattern, who may call, allowed query parameters,
// handler and help text. The dispatcher (http/dispatcher.cpp) is the one choke point that applies it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "request/handler.hpp"

namespace agentworks::server {

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
