// Writing a JSON answer (or an error object) to the request on a connection.
#pragma once

#include <string>

#include "agentworks/error.hpp"

namespace agentworks::server {

class HttpConnection;

void send_json(HttpConnection& conn, int status, const std::string& body);
void send_error(HttpConnection& conn, ErrorCode code, const std::string& message);

}  // namespace agentworks::server
