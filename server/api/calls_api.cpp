// Routes: call a function, read a call's status and files, answer its questions (R-F1..R-F4).
#include <filesystem>
#include <nlohmann/json.hpp>

#include "agentworks/base64.hpp"
#include "agentworks/error.hpp"
#include "agentworks/validation.hpp"
#include "api/body.hpp"
#include "api/function_json.hpp"
#include "api/handlers.hpp"
#include "api/json_out.hpp"
#include "api/query_params.hpp"
#include "crews/access.hpp"
#include "crews/call_admission.hpp"
#include "call/call_files.hpp"
#include "declaration/declaration.hpp"
#include "declaration/schema_check.hpp"
#include "store/calls_store.hpp"
#include "store/runners_store.hpp"
#include "store/crews_store.hpp"
#include "store/store.hpp"

namespace agentworks::server::api {

using nlohmann::json;

namespace {

constexpr std::size_t kMaxAnswerChars = 20000;

std::optional<std::string> submission_id_of(const json& body) {
  if (!body.contains("submission_id") || body["submission_id"].is_null()) return std::nullopt;
  if (!body["submission_id"].is_string()) throw Error(ErrorCode::bad_request, "submission_id must be a string");
  std::string id = body["submission_id"].get<std::string>();
  check_submission_id(id);
  return id;
}

int wait_of(const json& body) {
  if (!body.contains("wait_seconds")) return 0;
  const json& w = body["wait_seconds"];
  if (!w.is_number_integer() || w.get<long long>() < 0 || w.get<long long>() > kMaxWaitSeconds)
    throw Error(ErrorCode::bad_request, "wait_seconds must be an integer from 0 to 25");
  return w.get<int>();
}

bool terminal(const CallRow& c) { return !c.open(); }

// `notify`: true, false, or "agent:NAME" (R-D2); who may use which is admit_call's rule.
functions::NotifyRequest notify_of(const json& body) {
  functions::NotifyRequest n;
  const auto it = body.find("notify");
  if (it == body.end() || it->is_null()) return n;
  using Kind = functions::NotifyRequest::Kind;
  if (it->is_boolean()) {
    n.kind = it->get<bool>() ? Kind::yes : Kind::no;
    return n;
  }
  const std::string text = it->is_string() ? it->get<std::string>() : std::string();
  if (text.rfind("agent:", 0) != 0 || text.size() == 6)
    throw Error(ErrorCode::bad_request, "notify must be true, false or \"agent:NAME\" (an agent of your account)");
  n.kind = Kind::agent;
  n.agent_name = text.substr(6);
  return n;
}

// A question with a schema takes JSON text that satisfies it; anything else is refused and changes nothing.
void check_answer(const std::string& schema_json, const std::string& answer) {
  const json value = json::parse(answer, nullptr, false);
  if (value.is_discarded())
    throw Error(ErrorCode::invalid_input, "this question asks for JSON matching its schema (see pending_inputs[].schema); "
                                          "the answer is not JSON text");
  const auto violations = functions::validate(schema_json, value.dump(), "answer");
  if (!violations.empty())
    throw Error(ErrorCode::invalid_input, "the answer does not match the question's schema: " +
                                              functions::describe(violations));
}

// What a cancel did (R-D3), beside the call: "requested" (the call is ending; its outcome follows), "cancelled"
// (it ended so), or "already_ended" (it reached another outcome first: completion may win the race).
std::string cancel_word(const CallRow& call) {
  if (call.open()) return "requested";
  return call.status == CallStatus::cancelled ? "cancelled" : "already_ended";
}

// Marks a reply: `accepted` for a call request, `cancel` for a cancel.
enum class CallAnswerKind { status, accepted, cancel };

json call_answer_json(Store& store, const CallRow& call, CallAnswerKind kind) {
  json j = call_json(store, call, CallView{});
  if (kind == CallAnswerKind::accepted) j["accepted"] = true;
  if (kind == CallAnswerKind::cancel) j["cancel"] = cancel_word(call);
  return j;
}

// Answers now, or parks until the call reaches a terminal status (or the wait is over).
Response call_answer(Ctx& c, const CallRow& call, int status, int wait, CallAnswerKind kind) {
  auto render_call = [&store = c.store, call_id = call.call_id, kind](bool final) -> std::optional<std::string> {
    const auto row = call_by_id(store, call_id);
    if (!row) return std::nullopt;
    if (!final && !terminal(*row)) return std::nullopt;
    return dump(call_answer_json(store, *row, kind));
  };
  if (wait == 0 || terminal(call)) return json_reply(status, call_answer_json(c.store, call, kind));
  Response r;
  r.call_wait = CallWait{call.call_id, c.caller.connection_id, wait, status, render_call};
  return r;
}

}  // namespace

Response call_function(Ctx& c) {
  const Body b(c.body, {"function", "arguments", "submission_id", "wait_seconds", "notify"});
  functions::CallRequest request;
  request.crew = c.params.at(0);
  request.function = b.string("function");
  if (!c.body.contains("arguments"))
    throw Error(ErrorCode::bad_request, "arguments (the JSON the function's inputs schema describes) is required");
  request.arguments_json = c.body["arguments"].dump();
  request.submission_id = submission_id_of(c.body);
  request.notify = notify_of(c.body);
  const int wait = wait_of(c.body);
  const functions::AdmittedCall admitted = functions::admit_call(c.store, c.caller, request);
  return call_answer(c, admitted.call, admitted.created ? 201 : 200, wait, CallAnswerKind::accepted);
}

Response get_call(Ctx& c) {
  const CallRow call = functions::visible_call(c.store, c.caller, c.params.at(0));
  CallView view;
  view.after = int_query(c, "after", -1, INT64_MAX, -1);
  view.message_limit = static_cast<int>(int_query(c, "message_limit", 1, 500, 100));
  view.after_event = int_query(c, "after_event", -1, INT64_MAX, -1);
  view.event_limit = static_cast<int>(int_query(c, "event_limit", 1, 200, 50));
  const int wait = static_cast<int>(int_query(c, "wait_seconds", 0, kMaxWaitSeconds, 0));
  // Something new: a message after `after` or an event after `after_event` (every status change is an event).
  auto fresh = [view](const CallRow& row) { return row.next_message - 1 > view.after || row.next_event - 1 > view.after_event; };
  if (wait == 0 || fresh(call)) return json_reply(200, call_json(c.store, call, view));
  Response r;
  r.call_wait = CallWait{call.call_id, c.caller.connection_id, wait, 200,
                         [&store = c.store, id = call.call_id, view, fresh](bool final) -> std::optional<std::string> {
                           const auto row = call_by_id(store, id);
                           if (!row) return std::nullopt;
                           if (!final && !fresh(*row)) return std::nullopt;
                           return dump(call_json(store, *row, view));
                         }};
  return r;
}

Response get_call_file(Ctx& c) {
  const CallRow call = functions::visible_call(c.store, c.caller, c.params.at(0));
  const auto name = query_text(c, "name");
  if (!name) throw Error(ErrorCode::bad_request, "name (a file of the call, as listed in its files) is required");
  const std::int64_t offset = int_query(c, "offset", 0, INT64_MAX, 0);
  const std::int64_t limit =
      int_query(c, "limit", 1, functions::kMaxFilePageBytes, functions::kDefaultFilePageBytes);
  if (call.files_expired)
    throw Error(ErrorCode::expired, "this call's output folder was removed by cleanup (7 days after its last change)");
  if (call.served_by) {
    // R-R4: the files its runner uploaded, readable whether the runner is online or not.
    std::int64_t size = 0;
    std::string bytes = stored_file_bytes(c.store, call.call_id, *name, offset, limit, size);
    const functions::FilePage page = functions::page_of(std::move(bytes), std::min(offset, size), size);
    json j{{"call_id", call.call_id}, {"name", *name},  {"offset", page.offset},
           {"size", page.size},       {"next_offset", page.next_offset}, {"eof", page.eof}};
    if (page.text) j["content"] = page.bytes;
    else j["content_base64"] = base64_encode(page.bytes);
    return json_reply(200, j);
  }
  const auto dir = std::filesystem::path(call.crew_dir) / ".calls" / call.call_id;
  const functions::FilePage page = functions::read_call_file(dir, *name, offset, limit);
  json j{{"call_id", call.call_id}, {"name", *name},  {"offset", page.offset},
         {"size", page.size},       {"next_offset", page.next_offset}, {"eof", page.eof}};
  if (page.text) j["content"] = page.bytes;
  else j["content_base64"] = base64_encode(page.bytes);
  return json_reply(200, j);
}

Response reply_call(Ctx& c) {
  const Body b(c.body, {"request_id", "answer"});
  const std::string request_id = b.string("request_id");
  const std::string answer = b.string("answer");
  const auto chars = utf8_length(answer);
  if (!chars || *chars == 0 || *chars > kMaxAnswerChars)
    throw Error(ErrorCode::bad_request, "answer must be 1-20,000 characters of valid UTF-8");
  const CallRow call = functions::visible_call(c.store, c.caller, c.params.at(0));
  if (!call.open()) throw Error(ErrorCode::conflict, "call " + call.call_id + " has ended (" + state_text(call.status) + ")");
  if (call.cancel_requested_at)
    throw Error(ErrorCode::conflict, "call " + call.call_id + " is being cancelled; its questions were withdrawn");
  const auto asked = call_input(c.store, call.call_id, request_id);
  if (asked && !asked->answer && asked->schema_json) check_answer(*asked->schema_json, answer);
  answer_call_input(c.store, call.call_id, request_id, answer);
  return json_reply(200, json{{"call_id", call.call_id}, {"request_id", request_id}, {"answered", true}});
}

// By the caller's account or the Crew's owner, like every read of the call (visible_call). Idempotent: a second
// cancel, or one of an ended call, changes nothing and says what the call is.
Response cancel_call(Ctx& c) {
  const Body b(c.body, {"wait_seconds"});
  const int wait = wait_of(c.body);
  const CallRow call = functions::visible_call(c.store, c.caller, c.params.at(0));
  if (call.open()) request_cancel(c.store, call.call_id, c.caller.account_id);
  const auto now_row = call_by_id(c.store, call.call_id);
  return call_answer(c, now_row ? *now_row : call, 200, wait, CallAnswerKind::cancel);
}

}  // namespace agentworks::server::api
