#include "http/reply.hpp"

#include "http/connection.hpp"

namespace agentworks::server {

void send_json(HttpConnection& conn, int status, const std::string& body) { conn.reply(status, body); }

void send_error(HttpConnection& conn, ErrorCode code, const std::string& message) { conn.reply_error(code, message); }

}  // namespace agentworks::server
