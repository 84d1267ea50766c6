#include "http/route_table.hpp"

#include "api/handlers.hpp"

namespace agentworks::server {

const std::vector<Route>& routes() {
  static const std::vector<Route> table = {
      {"GET", "/v1/health", Auth::none, false, {}, api::health, "liveness and version"},
      {"GET", "/v1/whoami", Auth::any, false, {}, api::whoami, "the calling connection, account and agent"},
      {"POST", "/v1/connections", Auth::login, true, {}, api::create_connection,
       "create a child connection bound to one agent"},
      {"GET", "/v1/connections", Auth::login, false, {}, api::list_connections, "list the account's connections"},
      {"DELETE", "/v1/connections/{id}", Auth::any, false, {}, api::revoke_connection,
       "revoke a connection and its children"},
      {"POST", "/v1/agents", Auth::login, true, {}, api::register_agent, "register or re-register a named agent"},
      {"GET", "/v1/agents", Auth::any, false, {}, api::list_agents, "list the account's named agents"},
      {"GET", "/v1/agents/{name}", Auth::any, false, {}, api::get_agent, "show one named agent"},
      {"DELETE", "/v1/agents/{name}", Auth::login, false, {}, api::unregister_agent, "unregister a named agent"},
      {"POST", "/v1/agents/{name}/functions", Auth::login, true, {}, api::grant_functions,
       "grant the agent's chat the functions of Crews (the person's act: login connections only)"},
      {"DELETE", "/v1/agents/{name}/functions", Auth::login, false, {}, api::revoke_functions,
       "take back the agent's grant of functions"},
      {"GET", "/v1/agents/{name}/state", Auth::login, false, {"after", "limit"}, api::get_agent_state,
       "the owner's view of the agent's inboxes and their last deliveries (no bodies)"},
      {"POST", "/v1/agents/{name}/communication", Auth::login, true, {}, api::set_communication,
       "set how the agent talks: explicit or direct (the person's act: login connections only)"},
      {"POST", "/v1/agents/{name}/wakeups", Auth::any, true, {}, api::schedule_wakeup,
       "schedule (or, with wakeup_id, reschedule) a wakeup of the agent's chat (its own chat or its person)"},
      {"GET", "/v1/agents/{name}/wakeups", Auth::any, false, {}, api::list_wakeups,
       "the agent's pending wakeups and its last 20 others, with their states"},
      {"POST", "/v1/agents/{name}/wakeups/{id}/cancel", Auth::any, true, {}, api::cancel_wakeup,
       "cancel a pending wakeup (a cancelled one answers as it is)"},
      {"POST", "/v1/wakeups/pause", Auth::login, true, {}, api::pause_wakeups,
       "hold every wakeup of the account: due ones wait until resumed"},
      {"POST", "/v1/wakeups/resume", Auth::login, true, {}, api::resume_wakeups, "let held wakeups fire again"},
      {"POST", "/v1/messages", Auth::any, true, {}, api::send_message, "send a message (durable before the receipt)"},
      {"GET", "/v1/messages", Auth::any, false, {"inbox_id", "agent_name", "after", "limit", "wait_seconds"},
       api::read_messages, "read an inbox or a named mailbox, optionally long-polling"},
      {"GET", "/v1/messages/{id}/receipt", Auth::any, false, {}, api::get_receipt, "delivery state of a message"},
      {"POST", "/v1/messages/{id}/receipt", Auth::any, true, {}, api::set_receipt,
       "receiver marks a message admitted or processed"},
      {"GET", "/v1/inboxes/{id}", Auth::any, false, {}, api::get_inbox, "inbox metadata and state"},
      {"POST", "/v1/attachments", Auth::any, true, {}, api::create_attachment,
       "attach a chat under a name (fences the previous attachment)"},
      {"GET", "/v1/attachments", Auth::any, false, {"agent_name"}, api::list_attachments, "list attachments"},
      {"GET", "/v1/attachments/{id}", Auth::any, false, {}, api::get_attachment, "show one attachment"},
      {"DELETE", "/v1/attachments/{id}", Auth::any, false, {}, api::detach_attachment, "detach an attachment"},
      {"GET", "/v1/attachments/{id}/stream", Auth::any, false, {"after"}, api::stream_attachment,
       "SSE stream of the agent's mailbox for a current attachment"},
      {"POST", "/v1/attachments/{id}/release-check", Auth::any, true, {}, api::release_check,
       "may these cached messages still be released to the chat?"},
      {"POST", "/v1/attachments/{id}/interrupted", Auth::any, true, {}, api::report_interrupted,
       "the bridge reports offers that may not have arrived (their wakeups read interrupted)"},
      {"POST", "/v1/crews", Auth::login, true, {}, api::register_crew, "register a project folder as a Crew"},
      {"GET", "/v1/crews", Auth::login, false, {}, api::list_crews, "list the account's Crews"},
      {"GET", "/v1/crews/{crew}", Auth::login, false, {}, api::get_crew, "show one Crew and its functions"},
      {"POST", "/v1/crews/{crew}/reload", Auth::login, true, {}, api::reload_crew,
       "read the Crew's functions.json again (a refused file changes nothing)"},
      {"POST", "/v1/crews/{crew}/allow", Auth::login, true, {}, api::allow_crew,
       "set what the Crew's agent functions may use (refused below the declaration in force)"},
      {"POST", "/v1/crews/{crew}/messaging", Auth::login, true, {}, api::set_crew_messaging,
       "switch the Crew's agent messaging on or off, or back to crew.json's value (R-K3)"},
      {"POST", "/v1/crews/{crew}/serve", Auth::login, true, {}, api::serve_crew,
       "serve a served Crew again from the computer that sends its files: a new runner connection (R-R2)"},
      {"POST", "/v1/crews/{crew}/stop-serving", Auth::login, true, {}, api::stop_serving_crew,
       "stop serving a Crew: its runner's connection is revoked and its open calls cancelled (R-R2)"},
      {"DELETE", "/v1/crews/{crew}", Auth::login, false, {}, api::unregister_crew, "unregister a Crew"},
      {"POST", "/v1/runners/{crew}/work", Auth::runner, true, {}, api::runner_work,
       "a Crew's runner claims its next call by lease, or waits for one (R-R1)"},
      {"POST", "/v1/runners/{crew}/heartbeat", Auth::runner, true, {}, api::runner_heartbeat,
       "a Crew's runner renews the leases of its calls; the answer names those to cancel or kill (R-R1, R-R3)"},
      {"POST", "/v1/runners/{crew}/calls/{call}/report", Auth::runner, true, {}, api::runner_report,
       "a Crew's runner records what an execution reported (R-R1)"},
      {"GET", "/v1/runners/{crew}/calls/{call}/state", Auth::runner, false, {}, api::runner_call_state,
       "a Crew's runner reads a held call's status, question state and explicit answer (R-R1)"},
      {"POST", "/v1/runners/{crew}/calls/{call}/files", Auth::runner, true, {}, api::runner_file,
       "a Crew's runner uploads a piece of a held call's file, before its outcome (R-R4)"},
      {"POST", "/v1/runners/{crew}/calls/{call}/outcome", Auth::runner, true, {}, api::runner_outcome,
       "a Crew's runner records a held call's one outcome, checked against its output schema (R-R1, R-R3)"},
      {"GET", "/v1/crews/{crew}/functions", Auth::any, false, {}, api::list_functions,
       "the functions of a Crew the caller may call"},
      {"POST", "/v1/crews/{crew}/calls", Auth::any, true, {}, api::call_function,
       "call a function (inputs checked first; busy at the Crew's limit)"},
      {"GET", "/v1/calls", Auth::any, false, {"limit", "crew", "before"}, api::list_calls,
       "the recent calls the connection may see, newest first"},
      {"GET", "/v1/calls/{id}", Auth::any, false,
       {"after", "message_limit", "after_event", "event_limit", "wait_seconds"}, api::get_call,
       "a call's status, messages, events, outcome and files"},
      {"GET", "/v1/calls/{id}/file", Auth::any, false, {"name", "offset", "limit"}, api::get_call_file,
       "one page of a file of the call's folder"},
      {"POST", "/v1/calls/{id}/replies", Auth::any, true, {}, api::reply_call, "answer a call's pending question"},
      {"POST", "/v1/calls/{id}/cancel", Auth::any, true, {}, api::cancel_call,
       "ask a running or waiting call to end (its tree is killed; an ended call answers its outcome)"},
      {"POST", "/v1/calls/{id}/questions", Auth::call, true, {}, api::ask_question,
       "an execution asks its caller (per-call secret)"},
      {"GET", "/v1/calls/{id}/questions/{request_id}", Auth::call, false, {"wait_seconds"}, api::get_question,
       "an execution waits for the answer (per-call secret)"},
      {"POST", "/v1/calls/{id}/messages", Auth::call, true, {}, api::send_execution_message,
       "an explicit agent function sends a message; the last one is the call's answer (per-call secret)"},
      {"POST", "/v1/calls/{id}/no-reply", Auth::call, true, {}, api::decline_execution_reply,
       "an explicit agent function declines to answer (per-call secret)"},
      {"GET", "/v1/calls/{id}/crews/{crew}/functions", Auth::call, false, {}, api::execution_list_functions,
       "an execution lists the functions of a Crew its Crew may call (per-call secret)"},
      {"POST", "/v1/calls/{id}/crews/{crew}/calls", Auth::call, true, {}, api::execution_call_function,
       "an execution calls a function; its call is the caller of record (per-call secret)"},
      {"GET", "/v1/calls/{id}/calls/{call}", Auth::call, false,
       {"after", "message_limit", "after_event", "event_limit", "wait_seconds"}, api::execution_get_call,
       "an execution reads a call it made (per-call secret)"},
      {"POST", "/v1/calls/{id}/calls/{call}/replies", Auth::call, true, {}, api::execution_reply_call,
       "an execution answers a question of a call it made (per-call secret)"},
      {"POST", "/v1/calls/{id}/calls/{call}/cancel", Auth::call, true, {}, api::execution_cancel_call,
       "an execution cancels a call it made (per-call secret)"},
      {"POST", "/v1/turns/{conversation}/messages", Auth::turn, true, {}, api::send_turn_message,
       "a Crew's agent speaks in the conversation its turn answers (per-turn secret, R-K2)"},
      {"POST", "/v1/turns/{conversation}/no-reply", Auth::turn, true, {}, api::decline_turn_reply,
       "a Crew's agent declines to answer its turn's messages (per-turn secret, R-X2)"},
      {"POST", "/v1/turns/{conversation}/wakeups", Auth::turn, true, {}, api::schedule_turn_wakeup,
       "a Crew's agent schedules (or reschedules) a wakeup of the conversation its turn answers (per-turn secret, "
       "R-W1)"},
      {"GET", "/v1/turns/{conversation}/wakeups", Auth::turn, false, {}, api::list_turn_wakeups,
       "a Crew's agent lists the wakeups of its turn's conversation (per-turn secret)"},
      {"POST", "/v1/turns/{conversation}/wakeups/{id}/cancel", Auth::turn, true, {}, api::cancel_turn_wakeup,
       "a Crew's agent cancels a pending wakeup of its turn's conversation (per-turn secret)"},
      {"GET", "/v1/turns/{conversation}/crews/{crew}/functions", Auth::turn, false, {}, api::turn_list_functions,
       "a Crew's agent lists the functions of a Crew its Crew may call (per-turn secret, R-D4)"},
      {"POST", "/v1/turns/{conversation}/crews/{crew}/calls", Auth::turn, true, {}, api::turn_call_function,
       "a Crew's agent calls a function; its notices wake the conversation (per-turn secret, R-D4, R-D2)"},
      {"GET", "/v1/turns/{conversation}/calls/{call}", Auth::turn, false,
       {"after", "message_limit", "after_event", "event_limit", "wait_seconds"}, api::turn_get_call,
       "a Crew's agent reads a call its conversation made (per-turn secret)"},
      {"POST", "/v1/turns/{conversation}/calls/{call}/replies", Auth::turn, true, {}, api::turn_reply_call,
       "a Crew's agent answers a question of a call its conversation made (per-turn secret)"},
      {"POST", "/v1/turns/{conversation}/calls/{call}/cancel", Auth::turn, true, {}, api::turn_cancel_call,
       "a Crew's agent cancels a call its conversation made (per-turn secret)"},
  };
  return table;
}

namespace {

std::vector<std::string_view> split(std::string_view path) {
  std::vector<std::string_view> out;
  std::size_t start = 1;
  if (path.empty() || path[0] != '/') return out;
  while (start <= path.size()) {
    const std::size_t slash = path.find('/', start);
    const std::size_t end = slash == std::string_view::npos ? path.size() : slash;
    out.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

}  // namespace

const Route* match_route(std::string_view method, std::string_view path, std::vector<std::string>& params) {
  const auto segments = split(path);
  for (const Route& r : routes()) {
    if (method != r.method) continue;
    const auto pattern = split(r.pattern);
    if (pattern.size() != segments.size()) continue;
    std::vector<std::string> found;
    bool ok = true;
    for (std::size_t i = 0; i < pattern.size() && ok; ++i) {
      if (!pattern[i].empty() && pattern[i].front() == '{') {
        ok = !segments[i].empty();
        found.emplace_back(segments[i]);
      } else {
        ok = pattern[i] == segments[i];
      }
    }
    if (ok) {
      params = std::move(found);
      return &r;
    }
  }
  return nullptr;
}

}  // namespace agentworks::server
