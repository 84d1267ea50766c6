// Route handlers, one area per file in api/. They never check auth, body size or JSON syntax:
// the dispatcher did that already; name and allow-list rules live in the store.
#pragma once

#include "request/handler.hpp"

namespace agentworks::server::api {

Response health(Ctx& c);
Response whoami(Ctx& c);
Response create_connection(Ctx& c);
Response list_connections(Ctx& c);
Response revoke_connection(Ctx& c);

Response register_agent(Ctx& c);
Response list_agents(Ctx& c);
Response get_agent(Ctx& c);
Response unregister_agent(Ctx& c);

Response send_message(Ctx& c);
Response read_messages(Ctx& c);
Response get_receipt(Ctx& c);
Response set_receipt(Ctx& c);
Response get_inbox(Ctx& c);

Response create_attachment(Ctx& c);
Response list_attachments(Ctx& c);
Response get_attachment(Ctx& c);
Response detach_attachment(Ctx& c);
Response stream_attachment(Ctx& c);
Response release_check(Ctx& c);

Response register_crew(Ctx& c);
Response list_crews(Ctx& c);
Response get_crew(Ctx& c);
Response reload_crew(Ctx& c);
Response allow_crew(Ctx& c);
Response unregister_crew(Ctx& c);
Response list_functions(Ctx& c);
Response serve_crew(Ctx& c);
Response stop_serving_crew(Ctx& c);

// A Crew's runner (R-R1..R-R3): api/runners_api.cpp.
Response runner_work(Ctx& c);
Response runner_heartbeat(Ctx& c);
Response runner_report(Ctx& c);
Response runner_call_state(Ctx& c);
Response runner_outcome(Ctx& c);
Response runner_file(Ctx& c);

Response call_function(Ctx& c);
Response list_calls(Ctx& c);
Response get_call(Ctx& c);
Response get_call_file(Ctx& c);
Response reply_call(Ctx& c);
Response grant_functions(Ctx& c);
Response execution_list_functions(Ctx& c);
Response execution_call_function(Ctx& c);
Response execution_get_call(Ctx& c);
Response execution_reply_call(Ctx& c);
Response execution_cancel_call(Ctx& c);
Response revoke_functions(Ctx& c);
Response set_communication(Ctx& c);
Response get_agent_state(Ctx& c);
Response cancel_call(Ctx& c);
Response ask_question(Ctx& c);
Response get_question(Ctx& c);
Response send_execution_message(Ctx& c);
Response decline_execution_reply(Ctx& c);

Response schedule_wakeup(Ctx& c);
Response list_wakeups(Ctx& c);
Response cancel_wakeup(Ctx& c);
Response pause_wakeups(Ctx& c);
Response resume_wakeups(Ctx& c);
Response report_interrupted(Ctx& c);

Response set_crew_messaging(Ctx& c);
Response send_turn_message(Ctx& c);
Response decline_turn_reply(Ctx& c);
Response schedule_turn_wakeup(Ctx& c);
Response list_turn_wakeups(Ctx& c);
Response cancel_turn_wakeup(Ctx& c);
Response turn_list_functions(Ctx& c);
Response turn_call_function(Ctx& c);
Response turn_get_call(Ctx& c);
Response turn_reply_call(Ctx& c);
Response turn_cancel_call(Ctx& c);

}  // namespace agentworks::server::api
