// Routes: health, whoami, connections (R-B19, R-B20).
#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "api/body.hpp"
#include "api/handlers.hpp"
#include "api/json_out.hpp"
#include "store/store.hpp"

namespace agentworks::server::api {

using nlohmann::json;

Response health(Ctx&) { return json_reply(200, json{{"ok", true}, {"version", "0.1.0"}}); }

Response whoami(Ctx& c) {
  const Connection& me = c.caller;
  return json_reply(200, json{{"connection_id", me.connection_id},
                              {"account_id", me.account_id},
                              {"account_name", me.account_name},
                              {"kind", me.kind},
                              {"agent_name", me.agent_name ? json(*me.agent_name) : json(nullptr)}});
}

Response create_connection(Ctx& c) {
  const Body b(c.body, {"kind", "agent_name", "label", "supersede_siblings"});
  const std::string kind = b.opt_string("kind").value_or("child");
  const std::string label = b.opt_string("label").value_or("");
  if (label.size() > 200) throw Error(ErrorCode::bad_request, "label must be at most 200 bytes");
  NewConnection nc;
  if (kind == "login") {
    if (b.opt_string("agent_name") || b.opt_bool("supersede_siblings"))
      throw Error(ErrorCode::bad_request, "a login connection takes only \"label\"; leave out agent_name");
    nc = c.store.create_login(c.caller, label);
  } else if (kind == "child") {
    nc = c.store.create_child(c.caller, b.string("agent_name"), label, b.opt_bool("supersede_siblings").value_or(false));
  } else {
    throw Error(ErrorCode::bad_request, "kind must be \"child\" or \"login\"");
  }
  const Connection& made = nc.connection;
  return json_reply(201, json{{"connection_id", made.connection_id},
                              {"token", nc.token},
                              {"kind", made.kind},
                              {"agent_name", made.agent_name ? json(*made.agent_name) : json(nullptr)},
                              {"parent_id", made.parent_id ? json(*made.parent_id) : json(nullptr)}});
}

Response list_connections(Ctx& c) {
  json list = json::array();
  for (const auto& conn : c.store.list_connections(c.caller)) list.push_back(connection_json(conn));
  return json_reply(200, json{{"connections", list}});
}

Response revoke_connection(Ctx& c) {
  const std::string& id = c.params.at(0);
  const int children = c.store.revoke_connection(c.caller, id);
  return json_reply(200, json{{"revoked", true}, {"connection_id", id}, {"revoked_children", children}});
}

}  // namespace agentworks::server::api
