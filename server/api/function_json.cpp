#include "api/function_json.hpp"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "declaration/agent_allowance.hpp"
#include "call/call_files.hpp"
#include "crews/crew_talk.hpp"
#include "declaration/declaration.hpp"
#include "store/calls_store.hpp"
#include "store/crew_sessions_store.hpp"
#include "store/crews_store.hpp"
#include "store/runners_store.hpp"

namespace agentworks::server::api {

using nlohmann::json;

namespace {

json opt(const std::optional<std::string>& v) { return v ? json(*v) : json(nullptr); }

constexpr int kCrewConversationsShown = 20;

}  // namespace

json function_json(const functions::FunctionDecl& f) {
  return json{{"name", f.name},
              {"description", f.description},
              {"inputs", json::parse(f.inputs_json)},
              {"output_schema", f.output_schema_json ? json::parse(*f.output_schema_json) : json(nullptr)},
              {"runner", functions::runner_name(f.runner)},
              {"timeout_seconds", f.timeout_seconds},
              {"idle_timeout_seconds", f.idle_timeout_seconds},
              {"allowed_callers", f.allowed_callers},
              {"communication", std::string(f.explicit_communication ? "explicit" : "direct")}};
}

namespace {

// R-K2: the Crew's conversations as its owner sees them (crews show): never a message body.
json crew_conversations_json(Store& store, const Crew& crew) {
  json out = json::array();
  for (const auto& row : crew_conversations(store, crew.crew_id, kCrewConversationsShown)) {
    out.push_back(json{{"conversation_id", row.session.conversation_id},
                       {"inbox_id", row.inbox_id},
                       {"initiator", {{"agent_name", row.initiator_agent_name ? json(*row.initiator_agent_name)
                                                                               : json(nullptr)}}},
                       {"turn", row.session.running ? "running" : "idle"},
                       {"turns", row.session.turns},
                       {"last_turn_at", row.session.last_turn_at ? json(*row.session.last_turn_at) : json(nullptr)},
                       {"waiting", row.waiting}});
  }
  return out;
}

}  // namespace

json crew_json(Store& store, const Crew& crew, int max_running) {
  json fns = json::array();
  const functions::Declaration d = functions::declaration_from_json(crew.declaration_json);
  for (const auto& f : d.functions) fns.push_back(function_json(f));
  const functions::AgentAllowance allow = functions::allowance_from_json(crew.allowance_json);
  json agent = nullptr;
  if (d.agent) agent = json{{"runner", functions::runner_name(d.agent->runner)}, {"instructions", d.agent->agent.prompt}};
  // R-R1: which computer serves it, whether its runner is there now, and since when it is (or is not).
  json served = nullptr;
  if (crew.served()) {
    const bool online = runner_online(store, crew);
    served = json{{"host", *crew.runner_host},
                  {"serving", crew.runner_conn.has_value()},
                  {"online", online},
                  {"since", online || crew.runner_seen_at == 0 ? crew.runner_since : crew.runner_seen_at},
                  {"seen_at", crew.runner_seen_at > 0 ? json(crew.runner_seen_at) : json(nullptr)},
                  {"waiting_calls", unclaimed_calls(store, crew.crew_id)}};
  }
  return json{{"crew_id", crew.crew_id},       {"crew_name", crew.name},
              {"served", served},
              {"account_id", crew.account_id}, {"dir", crew.dir},
              {"running", running_calls(store, crew.crew_id)}, {"max_running", max_running},
              {"turns_running", running_turns(store, crew.crew_id)},
              {"functions", fns},
              {"allow", {{"claude_tools", allow.claude_tools}, {"codex_sandbox", allow.codex_sandbox}}},
              {"agent", agent},
              {"messaging", functions::messaging_on(crew, d)},
              {"messaging_source", crew.messaging_set ? "server" : "file"},
              {"conversations", crew_conversations_json(store, crew)},
              {"created_at", crew.created_at}, {"reloaded_at", crew.reloaded_at}};
}

json call_json(Store& store, const CallRow& call, const CallView& view) {
  json messages = json::array();
  std::int64_t next_after = view.after;
  for (const auto& m : call_messages(store, call.call_id, view.after, view.message_limit)) {
    messages.push_back(json{{"seq", m.seq}, {"kind", m.kind}, {"text", m.text}, {"created_at", m.created_at}});
    next_after = m.seq;
  }
  json events = json::array();
  std::int64_t next_after_event = view.after_event;
  for (const auto& e : call_events(store, call.call_id, view.after_event, view.event_limit)) {
    events.push_back(json{{"seq", e.seq}, {"type", e.type}, {"detail", e.detail}, {"created_at", e.created_at}});
    next_after_event = e.seq;
  }
  json pending = json::array();
  for (const auto& in : pending_inputs(store, call.call_id))
    pending.push_back(json{{"request_id", in.request_id},
                           {"question", in.question},
                           {"schema", in.schema_json ? json::parse(*in.schema_json) : json(nullptr)},
                           {"asked_at", in.asked_at}});
  const std::filesystem::path dir = std::filesystem::path(call.crew_dir) / ".calls" / call.call_id;
  // Expired only when cleanup removed the folder; a call that never started has none, and so no files.
  const bool expired = call.files_expired;
  std::error_code ec;
  json files = json::array();
  // A served call's folder is on its runner's computer, never read here (a folder of the same path here is not it):
  // its files are the ones its runner uploaded (R-R4), `stored` false for one over the upload limit.
  if (call.served_by && !expired) {
    for (const auto& f : stored_files(store, call.call_id))
      files.push_back(json{{"name", f.name}, {"size", f.size}, {"kind", f.text ? "text" : "binary"},
                           {"modified", f.modified}, {"stored", f.stored}});
  } else if (!call.served_by && !expired && std::filesystem::exists(dir, ec)) {
    for (const auto& f : functions::list_call_files(dir))
      files.push_back(json{{"name", f.name}, {"size", f.size}, {"kind", f.text ? "text" : "binary"},
                           {"modified", f.modified}});
  }
  json agent = nullptr;
  if (call.agent_cli)
    agent = json{{"cli", *call.agent_cli}, {"session_id", opt(call.agent_session)}, {"version", opt(call.agent_version)}};
  json error = nullptr;
  if (call.error_code) error = json{{"code", *call.error_code}, {"message", call.error_message.value_or("")}};
  return json{{"call_id", call.call_id},
              {"crew_id", call.crew_id},
              {"crew_name", call.crew_name},
              {"function", call.function},
              {"status", to_string(call.status)},
              {"progress", call.progress},
              {"submission_id", opt(call.submission_id)},
              {"correction_turn", call.correction},
              {"created_at", call.created_at},
              {"updated_at", call.updated_at},
              {"finished_at", call.finished_at ? json(*call.finished_at) : json(nullptr)},
              {"cancel_requested_at", call.cancel_requested_at ? json(*call.cancel_requested_at) : json(nullptr)},
              {"caller", {{"account_id", call.caller_account},
                          {"connection_id", call.caller_conn},
                          {"agent_name", opt(call.caller_agent_name)}}},
              {"notify", call.notify_agent_name ? json("agent:" + *call.notify_agent_name) : json(nullptr)},
              {"parent_call_id", opt(call.parent_call_id)},
              {"served", call.served_by.has_value()},
              {"depth", call.depth},
              {"messages", messages},
              {"next_after", next_after},
              {"events", events},
              {"next_after_event", next_after_event},
              {"answer", opt(call.answer)},
              {"result", call.result_json ? json::parse(*call.result_json) : json(nullptr)},
              {"result_file", opt(call.result_file)},
              {"error", error},
              {"agent", agent},
              {"files", files},
              {"files_expired", expired},
              {"pending_inputs", pending}};
}

json call_summary_json(const CallSummary& call) {
  json error = nullptr;
  if (call.error_code) error = json{{"code", *call.error_code}, {"message", call.error_message.value_or("")}};
  return json{{"call_id", call.call_id},
              {"crew_id", call.crew_id},
              {"crew_name", call.crew_name},
              {"function", call.function},
              {"status", to_string(call.status)},
              {"progress", call.progress},
              {"submission_id", opt(call.submission_id)},
              {"caller", {{"account_id", call.caller_account},
                          {"connection_id", call.caller_conn},
                          {"agent_name", opt(call.caller_agent_name)}}},
              {"error", error},
              {"created_at", call.created_at},
              {"updated_at", call.updated_at},
              {"finished_at", call.finished_at ? json(*call.finished_at) : json(nullptr)}};
}

}  // namespace agentworks::server::api
