// Writing a JSON answer (or an error object) to an evhttp request.
#pragma once

#include <string>

#include "agentworks/error.hpp"

struct evhttp_request;

namespace agentworks::server {

void send_json(evhttp_request* req, int status, const std::string& body);
void send_error(evhttp_request* req, ErrorCode code, const std::string& message);

}  // namespace agentworks::server
