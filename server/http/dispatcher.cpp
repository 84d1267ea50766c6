#include "http/dispatcher.hpp"

#include <event2/buffer.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "agentworks/validation.hpp"
#include "http/batch.hpp"
#include "http/reply.hpp"
#include "http/route_table.hpp"
#include "store/store.hpp"

namespace agentworks::server {
namespace {

const char* method_name(evhttp_cmd_type cmd) {
  switch (cmd) {
    case EVHTTP_REQ_GET: return "GET";
    case EVHTTP_REQ_POST: return "POST";
    case EVHTTP_REQ_DELETE: return "DELETE";
    case EVHTTP_REQ_PUT: return "PUT";
    case EVHTTP_REQ_PATCH: return "PATCH";
    case EVHTTP_REQ_HEAD: return "HEAD";
    case EVHTTP_REQ_OPTIONS: return "OPTIONS";
    default: return "OTHER";
  }
}

std::map<std::string, std::string> parse_query(const char* text, const Route& route) {
  std::map<std::string, std::string> out;
  if (text == nullptr || *text == '\0') return out;
  evkeyvalq kv{};
  if (evhttp_parse_query_str(text, &kv) != 0) {
    evhttp_clear_headers(&kv);
    throw Error(ErrorCode::bad_request, "the query string is malformed");
  }
  std::string problem;
  for (evkeyval* e = kv.tqh_first; e != nullptr; e = e->next.tqe_next) {
    const std::string key = e->key;
    bool known = false;
    for (const auto& allowed : route.query) known = known || allowed == key;
    if (!known) {
      problem = "unknown query parameter '" + key + "'";
      break;
    }
    if (!out.emplace(key, e->value).second) {
      problem = "query parameter '" + key + "' given twice";
      break;
    }
  }
  evhttp_clear_headers(&kv);
  if (!problem.empty()) throw Error(ErrorCode::bad_request, problem + "; see docs/protocol.md");
  return out;
}

std::string bearer_token(evhttp_request* req) {
  const char* h = evhttp_find_header(evhttp_request_get_input_headers(req), "Authorization");
  const std::string_view prefix = "Bearer ";
  if (h == nullptr) throw Error(ErrorCode::unauthenticated, "missing Authorization: Bearer TOKEN; sign in first");
  const std::string value = h;
  if (value.size() <= prefix.size() || value.compare(0, prefix.size(), prefix) != 0)
    throw Error(ErrorCode::unauthenticated, "the Authorization header must be 'Bearer TOKEN'");
  return value.substr(prefix.size());
}

}  // namespace

void Dispatcher::on_request(evhttp_request* req, void* self) { static_cast<Dispatcher*>(self)->handle(req); }

void Dispatcher::handle(evhttp_request* req) {
  try {
    const char* method = method_name(evhttp_request_get_command(req));
    const evhttp_uri* uri = evhttp_request_get_evhttp_uri(req);
    const char* raw_path = uri != nullptr ? evhttp_uri_get_path(uri) : nullptr;
    const std::string path = raw_path != nullptr ? raw_path : "";
    std::vector<std::string> params;
    const Route* route = match_route(method, path, params);
    if (route == nullptr)
      throw Error(ErrorCode::not_found, std::string("no route ") + method + " " + path + "; see docs/protocol.md");
    const auto query = parse_query(uri != nullptr ? evhttp_uri_get_query(uri) : nullptr, *route);

    evbuffer* input = evhttp_request_get_input_buffer(req);
    const std::size_t length = evbuffer_get_length(input);
    if (length > kMaxRequestBodyBytes)
      throw Error(ErrorCode::payload_too_large, "the request body is over 256 KiB; send a shorter message");
    nlohmann::json body = nlohmann::json::object();
    if (route->has_body) {
      std::string text(length, '\0');
      if (length > 0) evbuffer_copyout(input, text.data(), length);
      body = nlohmann::json::parse(text, nullptr, false);
      if (body.is_discarded()) throw Error(ErrorCode::bad_request, "the body is not valid JSON");
      if (!body.is_object()) throw Error(ErrorCode::bad_request, "the body must be a JSON object");
    }
    const char* leid = evhttp_find_header(evhttp_request_get_input_headers(req), "Last-Event-ID");
    const std::optional<std::string> last_event_id = leid != nullptr ? std::optional<std::string>(leid) : std::nullopt;

    if (route->auth == Auth::none) {
      const Connection nobody;
      Ctx ctx{store_, hub_, nobody, params, query, body, last_event_id};
      const Response r = route->handler(ctx);
      send_json(req, r.status, r.body);
      return;
    }
    const std::string token = bearer_token(req);
    Response response;
    try {
      store_.in_request([&] {
        const auto caller = store_.authenticate(token);
        if (!caller) throw Error(ErrorCode::unauthenticated, "unknown or revoked token; sign in again");
        if (route->auth == Auth::login && !caller->is_login())
          throw Error(ErrorCode::forbidden, "a child connection may not do this; use the login connection");
        Ctx ctx{store_, hub_, *caller, params, query, body, last_event_id};
        response = route->handler(ctx);
      });
    } catch (...) {
      if (store_.in_batch()) batch_.schedule();
      throw;
    }
    batch_.park(req, std::move(response));
  } catch (const Error& e) {
    send_error(req, e.code(), e.what());
  } catch (const std::exception& e) {
    spdlog::error("request failed: {}", e.what());
    send_error(req, ErrorCode::internal, "the server failed on this request; it was logged");
  }
}

}  // namespace agentworks::server
