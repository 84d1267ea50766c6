#include "ui/page_routes.hpp"

#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "ui/page_assets.hpp"

namespace agentworks::cli::ui {
using nlohmann::json;
namespace {

HttpResponse json_response(int status, const json& body) {
  HttpResponse r;
  r.status = status;
  r.content_type = "application/json";
  r.body = body.dump();
  return r;
}

HttpResponse error_response(const Error& e) {
  return json_response(http_status(e.code()),
                       {{"error", {{"code", std::string(code_name(e.code()))}, {"message", e.what()}}}});
}

HttpResponse method_not_allowed(const char* allow) {
  auto r = plain(405);
  r.headers.emplace_back("Allow", allow);
  return r;
}

}  // namespace

bool PageRoutes::host_ok(const HttpRequest& request) const {
  const auto host = request.header("host");
  const auto port = std::to_string(port_);
  return host == "127.0.0.1:" + port || host == "localhost:" + port;
}

bool PageRoutes::session_ok(const HttpRequest& request) const {
  return access_.session_ok(cookie_value(request.header("cookie"), access_.cookie_name()));
}

bool PageRoutes::is_event_stream(const HttpRequest& request) const {
  return request.method == "GET" && request.path == "/events" && host_ok(request) && session_ok(request);
}

HttpResponse PageRoutes::handle(const HttpRequest& request) {
  if (!host_ok(request)) return plain(403);
  if (request.path == "/" && request.query.find("token=") != std::string::npos) {
    if (request.method != "GET") return method_not_allowed("GET");
    const auto token = query_param(request.query, "token");
    if (!token || !access_.spend_token(*token)) {
      auto r = plain(403);
      r.body = "This link was already used, or is not this page's. Run `agentworks ui` again for a new one.\n";
      return r;
    }
    // The token leaves the address bar (and the history) at once; the cookie is the session from now on.
    HttpResponse r;
    r.status = 303;
    r.headers.emplace_back("Location", "/");
    r.headers.emplace_back("Set-Cookie", access_.set_cookie());
    return r;
  }
  if (!session_ok(request)) {
    // No page session in this browser: say how to get one, as the used-link answer does (nothing else is told).
    auto r = plain(403);
    r.body = "This page opens from the link `agentworks ui` prints (it works once, in one browser). Run "
             "`agentworks ui` again for a new one.\n";
    return r;
  }

  if (request.path.rfind("/api/", 0) == 0 && request.path != "/api/state") return action(request);
  const auto asset = find_page_asset(request.path == "/" ? "/index.html" : request.path);
  if (request.path == "/api/state") {
    if (request.method != "GET") return method_not_allowed("GET");
    HttpResponse r;
    r.content_type = "application/json";
    r.body = watcher_.current().json;
    return r;
  }
  if (!asset) return plain(404);
  if (request.method != "GET") return method_not_allowed("GET");
  HttpResponse r;
  r.content_type = std::string(asset->content_type);
  r.body = std::string(asset->content);
  return r;
}

HttpResponse PageRoutes::action(const HttpRequest& request) {
  const bool known = request.path == "/api/detach" || request.path == "/api/cleanup" || request.path == "/api/reveal";
  if (!known) return plain(404);
  if (request.method != "POST") return method_not_allowed("POST");
  const auto origin = request.header("origin");
  if (request.header("x-agentworks-ui") != "1" ||
      (!origin.empty() && origin != "http://" + request.header("host"))) {
    return plain(403);
  }
  if (request.header("content-type").rfind("application/json", 0) != 0) return plain(415);
  const json body = json::parse(request.body, nullptr, false);
  if (body.is_discarded() || !body.is_object()) {
    return error_response(Error(ErrorCode::bad_request, "the body must be one JSON object"));
  }
  try {
    json answer;
    if (request.path == "/api/detach") {
      answer = actions_.detach(body);
    } else if (request.path == "/api/cleanup") {
      answer = actions_.cleanup();
    } else {
      return json_response(200, actions_.reveal(body));
    }
    watcher_.kick();
    return json_response(200, answer);
  } catch (const Error& e) {
    return error_response(e);
  } catch (const std::exception& e) {
    return error_response(Error(ErrorCode::internal, e.what()));
  }
}

}  // namespace agentworks::cli::ui
