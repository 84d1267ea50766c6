#include "delivery/server_call.hpp"

#include <nlohmann/json.hpp>

#include "agentworks/server_client.hpp"
#include "agentworks/server_trust.hpp"
#include "platform/http_client.hpp"
#include "services/server_calls.hpp"

namespace agentworks::bridge {

using nlohmann::json;

void call_server(ServerCalls& bridge, const std::string& method, const std::string& server_url, const std::string& path,
                 const std::string& token, const json& body, std::function<void(const ServerAnswer&)> done,
                 long timeout_ms) {
  const std::string url = join_url(server_url, path);
  const std::string text = body.is_null() ? std::string() : body.dump();
  bridge.http().request(
      method, url, token, text,
      [url, server_url, done = std::move(done)](const HttpResponse& r) {
        json answer = json::object();
        ServerAnswer a;
        a.status = r.status;
        a.body = &answer;
        if (!r.reached()) {
          const Error e = r.certificate_failure ? certificate_error(server_url, r.transport_error)
                                                : unreachable_error(server_url, r.transport_error);
          a.error = &e;
          done(a);
          return;
        }
        if (!r.ok()) {
          const Error e = error_from_response(r.status, r.body, url);
          a.error = &e;
          done(a);
          return;
        }
        answer = json::parse(r.body, nullptr, false);
        if (!answer.is_object()) {
          answer = json::object();
          const Error e(ErrorCode::internal, "the server at " + server_url + " sent an answer that is not JSON");
          a.error = &e;
          done(a);
          return;
        }
        done(a);
      },
      timeout_ms);
}

}  // namespace agentworks::bridge
