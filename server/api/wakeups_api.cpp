// Routes: an agent's durable wakeups (R-W1..R-W5) and the person's pause.
#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "api/body.hpp"
#include "api/handlers.hpp"
#include "api/json_out.hpp"
#include "clock.hpp"
#include "store/store.hpp"
#include "store/wakeups_store.hpp"

namespace agentworks::server::api {

using nlohmann::json;

Response schedule_wakeup(Ctx& c) {
  const Body b(c.body, {"after_minutes", "at", "note", "wakeup_id"});
  WakeupRequest r;
  r.agent_name = c.params.at(0);
  r.after_minutes = b.opt_int64("after_minutes");
  r.at = b.opt_string("at");
  r.note = b.string("note");
  r.wakeup_id = b.opt_string("wakeup_id");
  return json_reply(200, wakeup_json(schedule_wakeup(c.store, c.caller, r), now()));
}

Response list_wakeups(Ctx& c) {
  const WakeupList list = list_wakeups(c.store, c.caller, c.params.at(0));
  const std::int64_t t = now();
  json items = json::array();
  for (const auto& w : list.wakeups) items.push_back(wakeup_json(w, t));
  return json_reply(200, json{{"agent_name", list.agent_name},
                              {"paused", wakeups_paused(c.store, c.caller.account_id)},
                              {"wakeups", items}});
}

Response cancel_wakeup(Ctx& c) {
  return json_reply(200, wakeup_json(cancel_wakeup(c.store, c.caller, c.params.at(0), c.params.at(1)), now()));
}

Response pause_wakeups(Ctx& c) {
  const Body b(c.body, {});
  set_wakeups_paused(c.store, c.caller, true);
  return json_reply(200, json{{"paused", true}});
}

Response resume_wakeups(Ctx& c) {
  const Body b(c.body, {});
  set_wakeups_paused(c.store, c.caller, false);
  return json_reply(200, json{{"paused", false}});
}

Response report_interrupted(Ctx& c) {
  const Body b(c.body, {"message_ids"});
  const auto ids = b.opt_string_array("message_ids", 100);
  if (!ids) throw Error(ErrorCode::bad_request, "missing field 'message_ids'");
  const Attachment a = c.store.get_attachment(c.caller, c.params.at(0));
  return json_reply(200, json{{"interrupted", note_wakeups_interrupted(c.store, a, *ids)}});
}

}  // namespace agentworks::server::api
