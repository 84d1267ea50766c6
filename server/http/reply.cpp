#include "http/reply.hpp"

#include <event2/buffer.h>
#include <event2/http.h>

#include "http/response.hpp"

namespace agentworks::server {

namespace {
const char* reason_phrase(int status) {
  switch (status) {
    case 200: return "OK";
    case 201: return "Created";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 413: return "Payload Too Large";
    case 429: return "Too Many Requests";
    case 503: return "Service Unavailable";
    default: return status >= 500 ? "Internal Server Error" : "Error";
  }
}
}  // namespace

void send_json(evhttp_request* req, int status, const std::string& body) {
  evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type", "application/json");
  evbuffer* buf = evbuffer_new();
  evbuffer_add(buf, body.data(), body.size());
  evhttp_send_reply(req, status, reason_phrase(status), buf);
  evbuffer_free(buf);
}

void send_error(evhttp_request* req, ErrorCode code, const std::string& message) {
  send_json(req, http_status(code), error_body(code, message));
}

}  // namespace agentworks::server
