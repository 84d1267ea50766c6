// Routes for a Crew agent's conversation turn (R-K2): it speaks in the conversation its turn answers, or declines
// on purpose (R-X2). Authenticated by the per-turn secret the server gave that turn, valid only while it runs;
// the agent reaches nobody else. And the person's messaging switch of a Crew (R-K3).
#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "agentworks/validation.hpp"
#include "api/body.hpp"
#include "api/function_json.hpp"
#include "api/handlers.hpp"
#include "api/json_out.hpp"
#include "clock.hpp"
#include "store/calls_store.hpp"
#include "store/crew_sessions_store.hpp"
#include "store/crews_store.hpp"
#include "store/store.hpp"
#include "store/wakeups_store.hpp"

namespace agentworks::server::api {

using nlohmann::json;

namespace {

CrewSession turn_of(Ctx& c) {
  auto session = running_turn(c.store, c.params.at(0), c.bearer);
  if (!session)
    throw Error(ErrorCode::unauthenticated, "this secret is not valid for a running turn of that conversation (the "
                                            "turn ended); it works only inside the Crew agent's running turn");
  return *session;
}

// The same handler the people's routes use, as the turn (R-K2 with R-D4): params[0] is the turn's conversation,
// the rest are the handler's own. Its calls are the conversation's: it reads only those, and their notices wake it.
Response as_turn(Ctx& c, Response (*handler)(Ctx&)) {
  const CrewSession turn = turn_of(c);
  const auto agent = c.store.find_crew_agent(turn.crew_id);
  if (!agent) throw Error(ErrorCode::not_found, "the Crew of this conversation was unregistered");
  Connection caller;
  caller.kind = "turn";
  caller.connection_id = turn.conversation_id;
  caller.account_id = agent->account_id;
  caller.agent_id = agent->agent_id;
  caller.agent_name = agent->name;
  const std::vector<std::string> params(c.params.begin() + 1, c.params.end());
  Ctx scoped{c.store, c.presence, caller, params, c.query, c.body, c.last_event_id, c.bearer};
  return handler(scoped);
}

}  // namespace

Response turn_list_functions(Ctx& c) { return as_turn(c, list_functions); }
Response turn_call_function(Ctx& c) { return as_turn(c, call_function); }
Response turn_get_call(Ctx& c) { return as_turn(c, get_call); }
Response turn_reply_call(Ctx& c) { return as_turn(c, reply_call); }
Response turn_cancel_call(Ctx& c) { return as_turn(c, cancel_call); }

Response send_turn_message(Ctx& c) {
  const Body b(c.body, {"text", "submission_id"});
  const std::string text = b.string("text");
  const auto chars = utf8_length(text);
  if (!chars || blank_text(text) || *chars > kMaxSentMessageChars)
    throw Error(ErrorCode::bad_request, "text must be 1-12,000 characters of valid UTF-8, not only spaces");
  const CrewSession turn = turn_of(c);
  const Receipt r = c.store.send_as_target(turn.conversation_id, text, b.opt_string("submission_id"));
  mark_turn_spoke(c.store, turn.conversation_id);
  return json_reply(r.repeated ? 200 : 201, json{{"message_id", r.message_id}, {"inbox_id", r.inbox_id}});
}

Response decline_turn_reply(Ctx& c) {
  const Body b(c.body, {"reason"});
  const std::string reason = b.opt_string("reason").value_or("");
  const auto chars = utf8_length(reason);
  if (!chars || *chars > kMaxNoReplyReasonChars)
    throw Error(ErrorCode::bad_request, "reason must be at most 500 characters of valid UTF-8");
  const CrewSession turn = turn_of(c);
  // The reason stays with the agent (R-X2): the senders see no_reply, never why.
  const int declined = decline_turn_messages(c.store, turn);
  mark_turn_spoke(c.store, turn.conversation_id);
  return json_reply(200, json{{"declined", declined}});
}

// R-W1 for a Crew's agent: the wakeups of the conversation its turn answers, scheduled in the Crew's name.
Response schedule_turn_wakeup(Ctx& c) {
  const CrewSession turn = turn_of(c);
  const Body b(c.body, {"after_minutes", "at", "note", "wakeup_id"});
  WakeupRequest r;
  r.after_minutes = b.opt_int64("after_minutes");
  r.at = b.opt_string("at");
  r.note = b.string("note");
  r.wakeup_id = b.opt_string("wakeup_id");
  return json_reply(200, wakeup_json(schedule_conversation_wakeup(c.store, turn.conversation_id, r, turn.crew_id),
                                     now()));
}

Response list_turn_wakeups(Ctx& c) {
  const CrewSession turn = turn_of(c);
  const std::int64_t t = now();
  json items = json::array();
  for (const auto& w : list_conversation_wakeups(c.store, turn.conversation_id)) items.push_back(wakeup_json(w, t));
  const auto crew = crew_by_id(c.store, turn.crew_id);
  return json_reply(200, json{{"agent_name", "crew:" + (crew ? crew->name : turn.crew_id)},
                              {"paused", wakeups_paused(c.store, crew ? crew->account_id : turn.account_id)},
                              {"wakeups", items}});
}

Response cancel_turn_wakeup(Ctx& c) {
  const CrewSession turn = turn_of(c);
  const Body b(c.body, {});
  return json_reply(200, wakeup_json(cancel_conversation_wakeup(c.store, turn.conversation_id, c.params.at(1)), now()));
}

Response set_crew_messaging(Ctx& c) {
  const Body b(c.body, {"messaging"});
  const auto it = c.body.find("messaging");
  if (it == c.body.end() || !(it->is_boolean() || it->is_null()))
    throw Error(ErrorCode::bad_request, "messaging must be true, false or null (null: crew.json's value)");
  const Crew crew = own_crew(c.store, c.caller, c.params.at(0));
  set_messaging(c.store, crew.crew_id, it->is_null() ? std::nullopt : std::optional<bool>(it->get<bool>()));
  return json_reply(200, crew_json(c.store, *crew_by_id(c.store, crew.crew_id), c.store.limits().crew_max_running));
}

}  // namespace agentworks::server::api
