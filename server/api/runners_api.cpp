// Routes of a Crew's runner (R-R1..R-R3, docs/protocol.md "Runners"): the bridge of the computer serving a Crew
// claims its calls by lease, renews the lease, reports what the executions say and how they ended. Every route
// takes the runner's own connection (Auth::runner) and reaches only its Crew and the calls it holds; an upload
// for a call it no longer holds open is refused, so the runner never reports on what the server settled.
#include <nlohmann/json.hpp>

#include "agentworks/base64.hpp"
#include "agentworks/error.hpp"
#include "api/body.hpp"
#include "api/handlers.hpp"
#include "call/call_files.hpp"
#include "call/report_wire.hpp"
#include "call/result_check.hpp"
#include "crews/call_admission.hpp"
#include "request/response.hpp"
#include "store/calls_store.hpp"
#include "store/runners_store.hpp"
#include "store/states.hpp"
#include "store/store.hpp"

namespace agentworks::server::api {

using nlohmann::json;
namespace library = agentworks::functions;

namespace {

constexpr int kMaxRunnerWaitSeconds = 25;

// The lease the runner must renew within; its parked claim answers well before it lapses.
int lease_seconds(Ctx& c) { return c.store.limits().call_lease_seconds; }

json claimed_json(Ctx& c, const ClaimedCall& claimed) {
  const CallRow& call = claimed.call;
  return json{{"call", {{"call_id", call.call_id},
                        {"function", call.function},
                        {"arguments", json::parse(call.arguments_json)},
                        {"token", claimed.token},
                        {"declaration_hash", call.declaration_hash.value_or("")},
                        {"created_at", call.created_at}}},
              {"lease_seconds", lease_seconds(c)},
              {"upload_limit", c.store.limits().call_upload_limit}};
}

// The open call the runner holds: an upload for anything else is refused and records nothing.
CallRow open_held_call(Ctx& c, const Crew& crew) {
  CallRow call = held_call(c.store, crew, c.caller, c.params.at(1));
  if (!call.open())
    throw Error(ErrorCode::conflict, "call " + call.call_id + " is settled (" + std::string(to_string(call.status)) +
                                         "); kill what is left of its execution and report nothing more");
  return call;
}

}  // namespace

Response runner_work(Ctx& c) {
  const Body b(c.body, {"wait_seconds"});
  const Crew crew = runner_crew(c.store, c.caller, c.params.at(0));
  const std::int64_t wait = b.opt_int64("wait_seconds").value_or(0);
  if (wait < 0 || wait > kMaxRunnerWaitSeconds)
    throw Error(ErrorCode::bad_request, "wait_seconds must be an integer from 0 to 25");
  runner_seen(c.store, crew.crew_id);
  if (auto claimed = claim_call(c.store, crew, c.caller)) return json_reply(200, claimed_json(c, *claimed));
  // Nothing yet: parked until a call is admitted for the Crew (or the time is up). A wake answers "again": the
  // claim itself is a write, made by the runner's next request, so it is released only after its commit. The
  // park ends within the lease, so a waiting runner stays online.
  const int park = static_cast<int>(std::min<std::int64_t>(wait, std::max(1, lease_seconds(c) / 2)));
  const json empty{{"call", nullptr}, {"again", false}, {"lease_seconds", lease_seconds(c)}};
  if (park == 0) return json_reply(200, empty);
  Response r;
  r.call_wait = CallWait{crew.crew_id, c.caller.connection_id, park, 200,
                         [&store = c.store, crew_id = crew.crew_id, empty](bool final) -> std::optional<std::string> {
                           if (unclaimed_calls(store, crew_id) > 0) {
                             json again = empty;
                             again["again"] = true;
                             return dump(again);
                           }
                           if (final) return dump(empty);
                           return std::nullopt;
                         }};
  return r;
}

Response runner_heartbeat(Ctx& c) {
  const Body b(c.body, {"calls"});
  const Crew crew = runner_crew(c.store, c.caller, c.params.at(0));
  const auto ids = b.opt_string_array("calls", 1000).value_or(std::vector<std::string>{});
  runner_seen(c.store, crew.crew_id);
  const Heartbeat beat = server::runner_heartbeat(c.store, crew, c.caller, ids);
  return json_reply(200, json{{"cancel", beat.cancel}, {"settled", beat.settled}, {"lease_seconds", lease_seconds(c)}});
}

Response runner_report(Ctx& c) {
  const Crew crew = runner_crew(c.store, c.caller, c.params.at(0));
  const CallRow call = open_held_call(c, crew);
  const library::ExecutionReport report = library::report_from_json(c.body);
  record_report(c.store, call.call_id, report);
  renew_served_lease(c.store, call.call_id);
  return json_reply(200, json{{"recorded", true},
                              {"cancel_requested", call.cancel_requested_at.has_value()},
                              {"lease_seconds", lease_seconds(c)}});
}

Response runner_call_state(Ctx& c) {
  const Crew crew = runner_crew(c.store, c.caller, c.params.at(0));
  const CallRow call = held_call(c.store, crew, c.caller, c.params.at(1));
  const ExplicitReply said = explicit_reply(c.store, call.call_id);
  return json_reply(200, json{{"status", to_string(call.status)},
                              {"waiting_input", call.status == CallStatus::waiting_input},
                              {"cancel_requested", call.cancel_requested_at.has_value()},
                              {"explicit", library::explicit_answer_to_json({said.sent, said.declined})}});
}

// R-R4: one piece of a file of the call's folder, uploaded when the execution ended (before the outcome). A file
// over the upload limit is listed with its size and `stored` false, and takes no bytes.
Response runner_file(Ctx& c) {
  const Body b(c.body, {"name", "size", "text", "modified", "stored", "offset", "data"});
  const Crew crew = runner_crew(c.store, c.caller, c.params.at(0));
  const CallRow call = open_held_call(c, crew);
  StoredFile file;
  file.name = b.string("name");
  if (file.name.empty() || file.name.size() > 1024 || file.name.front() == '/' || file.name.find('\0') != std::string::npos ||
      ("/" + file.name + "/").find("/../") != std::string::npos || ("/" + file.name + "/").find("/./") != std::string::npos)
    throw Error(ErrorCode::bad_request, "name is a file's path inside the call's folder (no '..', at most 1,024 bytes)");
  file.size = b.opt_int64("size").value_or(-1);
  file.text = b.opt_bool("text").value_or(false);
  file.modified = b.opt_int64("modified").value_or(0);
  file.stored = b.opt_bool("stored").value_or(true);
  const std::int64_t offset = b.opt_int64("offset").value_or(0);
  if (file.size < 0 || offset < 0) throw Error(ErrorCode::bad_request, "size and offset are byte counts");
  if (file.stored && file.size > c.store.limits().call_upload_limit)
    throw Error(ErrorCode::bad_request, "file '" + file.name + "' is over the upload limit of " +
                                            std::to_string(c.store.limits().call_upload_limit) +
                                            " bytes: send it with stored false");
  std::string bytes;
  if (const auto data = b.opt_string("data")) {
    auto decoded = base64_decode(*data);
    if (!decoded || decoded->size() > library::kFilePieceBytes)
      throw Error(ErrorCode::bad_request, "data is at most 128 KiB of the file, in padded base64");
    bytes = std::move(*decoded);
  }
  if (offset == 0 && stored_files(c.store, call.call_id).size() >= library::kMaxListedFiles)
    throw Error(ErrorCode::limit_reached, "a call keeps at most 1,000 files");
  store_file_piece(c.store, call.call_id, file, offset, bytes);
  renew_served_lease(c.store, call.call_id);
  return json_reply(200, json{{"name", file.name}, {"received", offset + static_cast<std::int64_t>(bytes.size())}});
}

Response runner_outcome(Ctx& c) {
  const Crew crew = runner_crew(c.store, c.caller, c.params.at(0));
  const CallRow call = open_held_call(c, crew);
  library::ExecutionOutcome outcome = library::outcome_from_json(c.body);
  if (outcome.result_file)
    throw Error(ErrorCode::bad_request, "a served call's result is sent inline (result), not as a file");
  if (outcome.error_code && outcome.error_code->find_first_not_of("abcdefghijklmnopqrstuvwxyz_") != std::string::npos)
    throw Error(ErrorCode::bad_request, "error_code is a lowercase code such as exit_status");
  // The result is checked here too (R-R3): against the output schema of the declaration the call was admitted
  // under. A result that fails is recorded as the call's failure, never as its result.
  const auto parsed = functions::parsed_declaration(crew);
  const library::FunctionDecl* f = library::find_function(parsed->declaration, call.function);
  if (outcome.status == library::ExecutionOutcome::Status::completed && f != nullptr) {
    std::string problem;
    if (f->output_schema_json && !outcome.result_json) problem = "no result, and the function declares an output schema";
    else if (!f->output_schema_json && outcome.result_json) problem = "a result, and the function declares no output schema";
    else if (outcome.result_json) {
      const library::ResultCheck check = library::check_answer(*outcome.result_json, *f->output_schema_json);
      if (!check.result_json) problem = check.problem;
    }
    if (!problem.empty()) {
      outcome.status = library::ExecutionOutcome::Status::failed;
      outcome.error_code = "result_invalid";
      outcome.error_message = "the runner's result was refused by the server: " + problem;
      outcome.result_json.reset();
    }
  }
  finish_call(c.store, call.call_id, outcome_of(outcome));
  const CallRow now_row = *call_by_id(c.store, call.call_id);
  return json_reply(200, json{{"status", to_string(now_row.status)},
                              {"error_code", now_row.error_code ? json(*now_row.error_code) : json(nullptr)}});
}

}  // namespace agentworks::server::api
