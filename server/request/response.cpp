#include "request/response.hpp"

#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"

namespace agentworks::server {

std::string dump(const nlohmann::json& j) { return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

Response json_reply(int status, const nlohmann::json& body) {
  Response r;
  r.status = status;
  r.body = dump(body);
  return r;
}

std::string error_body(ErrorCode code, const std::string& message) {
  return dump(nlohmann::json{{"error", {{"code", std::string(code_name(code))}, {"message", message}}}});
}

Response error_reply(ErrorCode code, const std::string& message) {
  Response r;
  r.status = http_status(code);
  r.body = error_body(code, message);
  return r;
}

}  // namespace agentworks::server
