// One asynchronous server API call with the shared error mapping: the server's {"error":{code,message}} keeps its
// code, a transport failure becomes `unreachable` with a hint. The callback runs on the loop.
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "agentworks/error.hpp"

namespace agentworks::bridge {

class ServerCalls;

struct ServerAnswer {
  const Error* error = nullptr;      // null on success (2xx with a JSON object)
  const nlohmann::json* body = nullptr;  // the answer (an empty object on error)
  long status = 0;
};

void call_server(ServerCalls& bridge, const std::string& method, const std::string& server_url, const std::string& path,
                 const std::string& token, const nlohmann::json& body, std::function<void(const ServerAnswer&)> done,
                 long timeout_ms = 15000);

}  // namespace agentworks::bridge
