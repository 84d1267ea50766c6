// Routes for a Crew agent's conversation turn (R-K2): it speaks in the conversation its turn answers, or declines
// on purpose (R-X2). Authenticated by the per-turn secret the server gave that turn, valid only while it runs;
// the agent reaches nobody else. And the person's messaging switch of a Crew (R-K3).
#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "agentworks/validation.hpp"
#include "api/body.hpp"
#include "api/function_json.hpp"
#include "api/handlers.hpp"
#include "store/calls_store.hpp"
#include "store/crew_sessions_store.hpp"
#include "store/crews_store.hpp"
#include "store/store.hpp"

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

}  // namespace

Response send_turn_message(Ctx& c) {
  const Body b(c.body, {"text"});
  const std::string text = b.string("text");
  const auto chars = utf8_length(text);
  if (!chars || blank_text(text) || *chars > kMaxSentMessageChars)
    throw Error(ErrorCode::bad_request, "text must be 1-12,000 characters of valid UTF-8, not only spaces");
  const CrewSession turn = turn_of(c);
  const Receipt r = c.store.send_as_target(turn.conversation_id, text);
  mark_turn_spoke(c.store, turn.conversation_id);
  return json_reply(201, json{{"message_id", r.message_id}, {"inbox_id", r.inbox_id}});
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
