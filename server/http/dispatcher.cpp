#include "http/dispatcher.hpp"

#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "api/body.hpp"
#include "http/batch.hpp"
#include "http/connection.hpp"
#include "http/hub.hpp"
#include "http/reply.hpp"
#include "http/route_table.hpp"
#include "store/store.hpp"

namespace agentworks::server {
namespace {

bool known_method(const std::string& m) {
  return m == "GET" || m == "POST" || m == "DELETE" || m == "PUT" || m == "PATCH" || m == "HEAD" || m == "OPTIONS";
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

std::string bearer_token(const RequestHead& head) {
  const std::string* h = head.header("authorization");
  const std::string_view prefix = "Bearer ";
  if (h == nullptr) throw Error(ErrorCode::unauthenticated, "missing Authorization: Bearer TOKEN; sign in first");
  if (h->size() <= prefix.size() || h->compare(0, prefix.size(), prefix) != 0)
    throw Error(ErrorCode::unauthenticated, "the Authorization header must be 'Bearer TOKEN'");
  return h->substr(prefix.size());
}

struct UriDeleter {
  void operator()(evhttp_uri* u) const { evhttp_uri_free(u); }
};

}  // namespace

void Dispatcher::handle(HttpConnection& conn) {
  try {
    const RequestHead& head = conn.head();
    if (!known_method(head.method))
      throw Error(ErrorCode::bad_request, "method " + head.method + " is not supported; use GET, POST or DELETE");
    const std::unique_ptr<evhttp_uri, UriDeleter> uri(
        evhttp_uri_parse_with_flags(head.target.c_str(), EVHTTP_URI_NONCONFORMANT));
    if (!uri) throw Error(ErrorCode::bad_request, "the request target is malformed; see docs/protocol.md");
    const char* raw_path = evhttp_uri_get_path(uri.get());
    const std::string path = raw_path != nullptr ? raw_path : "";
    const std::string& method = head.method;
    std::vector<std::string> params;
    const Route* route = match_route(method, path, params);
    if (route == nullptr)
      throw Error(ErrorCode::not_found, "no route " + method + " " + path + "; see docs/protocol.md");
    const char* query_text = evhttp_uri_get_query(uri.get());
    const std::string* leid = head.header("last-event-id");
    const std::optional<std::string> last_event_id = leid != nullptr ? std::optional<std::string>(*leid) : std::nullopt;
    // The connection already refused bodies over kMaxRequestBodyBytes (payload_too_large).

    if (route->auth == Auth::none) {
      const auto query = parse_query(query_text, *route);
      const nlohmann::json body = route->has_body ? parse_request_body(conn.body()) : nlohmann::json::object();
      const Connection nobody;
      const std::string no_token;
      Ctx ctx{store_, hub_, nobody, params, query, body, last_event_id, no_token};
      const Response r = route->handler(ctx);
      send_json(conn, r.status, r.body);
      return;
    }
    // Authenticate before looking at the query or the body: an unauthenticated caller learns nothing else.
    const std::string token = bearer_token(head);
    const std::string no_token;
    Response response;
    std::uint64_t batch = 0;
    try {
      batch = store_.in_request([&] {
        if (route->auth == Auth::call || route->auth == Auth::turn) {
          const Connection nobody;
          const auto query = parse_query(query_text, *route);
          const nlohmann::json body = route->has_body ? parse_request_body(conn.body()) : nlohmann::json::object();
          Ctx ctx{store_, hub_, nobody, params, query, body, last_event_id, token};
          response = route->handler(ctx);
          return;
        }
        const auto caller = store_.authenticate(token);
        if (!caller) throw Error(ErrorCode::unauthenticated, "unknown or revoked token; sign in again");
        // A runner's connection is scoped to its Crew's runner routes (R-R2), and those take nothing else.
        if (caller->is_runner() != (route->auth == Auth::runner))
          throw Error(ErrorCode::forbidden, caller->is_runner()
                                                ? "a Crew runner's connection reaches only its runner routes"
                                                : "only the runner of a served Crew uses this route");
        if (route->auth == Auth::login && !caller->is_login())
          throw Error(ErrorCode::forbidden, "a child connection may not do this; use the login connection");
        const auto query = parse_query(query_text, *route);
        const nlohmann::json body = route->has_body ? parse_request_body(conn.body()) : nlohmann::json::object();
        Ctx ctx{store_, hub_, *caller, params, query, body, last_event_id, no_token};
        response = route->handler(ctx);
      });
    } catch (...) {
      if (store_.in_batch()) batch_.schedule();
      throw;
    }
    batch_.park(conn, std::move(response), batch);
  } catch (const Error& e) {
    send_error(conn, e.code(), e.what());
  } catch (const std::exception& e) {
    spdlog::error("request failed: {}", e.what());
    send_error(conn, ErrorCode::internal, "the server failed on this request; it was logged");
  }
}

}  // namespace agentworks::server
