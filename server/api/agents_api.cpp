// Routes: named agents (R-M4, R-M5, R-M6, R-M8).
#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "agentworks/validation.hpp"
#include "api/body.hpp"
#include "api/handlers.hpp"
#include "api/json_out.hpp"
#include "api/query_params.hpp"
#include "crews/access.hpp"
#include "store/agent_state.hpp"
#include "store/grants_store.hpp"
#include "clock.hpp"
#include "store/store.hpp"
#include "store/wakeups_store.hpp"

namespace agentworks::server::api {

using nlohmann::json;

namespace {

// The grant on the wire (R-D1): "all", or the list of Crews (empty: none).
json grant_json(const FunctionGrant& g) { return g.all ? json("all") : json(g.crews); }

json render(Ctx& c, const Agent& a) {
  std::optional<std::vector<std::string>> ids;
  if (c.caller.is_login()) ids = c.store.allow_list(a.agent_id);
  json j = agent_json(a, ids, c.presence.agent_connected(a.agent_id));
  j["functions"] = grant_json(function_grant(c.store, a.account_id, a.name));
  return j;
}

constexpr std::size_t kMaxGrantedCrews = 100;

void check_text(const std::optional<std::string>& v, const char* field, std::size_t max_chars) {
  if (!v) return;
  const auto n = utf8_length(*v);
  if (!n || *n > max_chars)
    throw Error(ErrorCode::bad_request,
                std::string(field) + " must be valid UTF-8 of at most " + std::to_string(max_chars) + " characters");
}

}  // namespace

Response register_agent(Ctx& c) {
  const Body b(c.body, {"agent_name", "purpose", "provider", "allowed_connection_ids", "communication"});
  const std::string name = b.string("agent_name");
  const auto purpose = b.opt_string("purpose");
  const auto provider = b.opt_string("provider");
  check_text(purpose, "purpose", kMaxPurposeChars);
  check_text(provider, "provider", 64);
  const auto ids = b.opt_string_array("allowed_connection_ids", 1000);
  const AgentTalk talk{b.opt_string("communication"), std::nullopt};  // R-X1: checked before anything is written
  if (talk.communication && *talk.communication != "explicit" && *talk.communication != "direct")
    throw Error(ErrorCode::bad_request, "communication must be \"explicit\" or \"direct\"");
  auto [agent, created] = c.store.register_agent(c.caller, name, purpose, provider, ids);
  if (talk.communication) agent = c.store.set_talk(c.caller, agent.name, talk);
  return json_reply(created ? 201 : 200, render(c, agent));
}

Response list_agents(Ctx& c) {
  json list = json::array();
  for (const auto& a : c.store.list_agents(c.caller)) list.push_back(render(c, a));
  return json_reply(200, json{{"agents", list}});
}

Response get_agent(Ctx& c) { return json_reply(200, render(c, c.store.require_agent(c.caller, c.params.at(0)))); }

// R-D1: `{"functions": "all" | ["CREW", …]}`. Each Crew must be one the account may call now (a name of its own,
// or another account's crw_ id); the grant replaces the last one. A login connection only: the person's act.
Response grant_functions(Ctx& c) {
  const Body b(c.body, {"functions"});
  const Agent agent = c.store.require_agent(c.caller, c.params.at(0));
  const auto it = c.body.find("functions");
  FunctionGrant grant;
  if (it != c.body.end() && it->is_string() && it->get<std::string>() == "all") {
    grant.all = true;
  } else if (it != c.body.end() && it->is_array() && !it->empty() && it->size() <= kMaxGrantedCrews) {
    for (const auto& entry : *it) {
      if (!entry.is_string() || entry.get<std::string>().empty())
        throw Error(ErrorCode::bad_request, "functions lists Crews by name (or crw_ id): non-empty strings");
      const Crew crew = functions::grantable_crew(c.store, c.caller, agent, entry.get<std::string>());
      grant.crews.push_back(crew.account_id == c.caller.account_id ? crew.name : crew.crew_id);
    }
  } else {
    throw Error(ErrorCode::bad_request, "functions must be \"all\" or a list of 1-100 Crew names; to take a grant "
                                        "back: agentworks agents revoke NAME --functions");
  }
  set_function_grant(c.store, agent.account_id, agent.name, grant);
  return json_reply(200, render(c, agent));
}

// The owner's state view: where the agent's messages are received, its inboxes and their last deliveries.
Response get_agent_state(Ctx& c) {
  const int limit = static_cast<int>(int_query(c, "limit", 1, kMaxStateInboxes, kMaxStateInboxes));
  const AgentState st = agent_state(c.store, c.caller, c.params.at(0), query_text(c, "after"), limit);
  const auto opt = [](const auto& v) { return v ? json(*v) : json(nullptr); };
  json inboxes = json::array();
  for (const InboxState& in : st.inboxes) {
    json deliveries = json::array();
    for (const DeliveryRecord& r : in.deliveries)
      deliveries.push_back({{"message_id", r.message_id},
                            {"direction", r.direction},
                            {"kind", r.kind},
                            {"state", to_string(r.state)},
                            {"reply_state", r.kind == "message" ? json(r.reply_state.value_or("pending")) : json(nullptr)},
                            {"created_at", r.created_at},
                            {"admitted_at", opt(r.admitted_at)},
                            {"processed_at", opt(r.processed_at)}});
    const Conversation& conv = in.conversation;
    inboxes.push_back({{"inbox_id", conv.inbox_id},
                       {"conversation_id", conv.conversation_id},
                       {"state", to_string(conv.state)},
                       {"initiator", {{"agent_name", opt(conv.initiator_agent_name)}, {"connection_id", conv.initiator_conn}}},
                       {"created_at", conv.created_at},
                       {"last_activity", conv.last_activity},
                       {"deliveries", deliveries}});
  }
  json receiving = nullptr;
  if (st.receiving)
    receiving = {{"attachment_id", st.receiving->attachment_id},
                 {"provider", st.receiving->provider},
                 {"session_id", st.receiving->native_session_id}};
  json wakeups = json::array();  // R-W5: the owner sees every wakeup state beside the deliveries
  const std::int64_t t = now();
  if (!st.agent.agent_id.empty())  // a Crew's agent nobody has talked to yet has none
    for (const Wakeup& w : list_wakeups(c.store, c.caller, st.agent.name).wakeups)
      wakeups.push_back(wakeup_json(w, t));
  return json_reply(200, json{{"agent_name", st.agent.name},
                              {"communication", st.agent.communication},
                              {"wakeups", wakeups},
                              {"wakeups_paused", wakeups_paused(c.store, c.caller.account_id)},
                              {"receiving", receiving},
                              {"inboxes", inboxes},
                              {"next_after", opt(st.next_after)}});
}

Response set_communication(Ctx& c) {
  const Body b(c.body, {"communication", "nudge"});
  AgentTalk talk{b.opt_string("communication"), std::nullopt};
  if (const auto nudge = b.opt_string("nudge")) {  // R-X3
    if (*nudge != "on" && *nudge != "off") throw Error(ErrorCode::bad_request, "nudge must be \"on\" or \"off\"");
    talk.nudge = *nudge == "on";
  }
  if (!talk.communication && !talk.nudge)
    throw Error(ErrorCode::bad_request, "give communication (explicit|direct), nudge (on|off) or both");
  return json_reply(200, render(c, c.store.set_talk(c.caller, c.params.at(0), talk)));
}

Response revoke_functions(Ctx& c) {
  const Agent agent = c.store.require_agent(c.caller, c.params.at(0));
  set_function_grant(c.store, agent.account_id, agent.name, FunctionGrant{});
  return json_reply(200, render(c, agent));
}

Response unregister_agent(Ctx& c) {
  const std::string name = c.store.unregister_agent(c.caller, c.params.at(0));
  return json_reply(200, json{{"removed", true}, {"agent_name", name}});
}

}  // namespace agentworks::server::api
