// Routes for an execution: asking its caller (`agentworks functions ask`), and calling functions of other Crews
// (R-D4: `agentworks functions …` inside an execution). Authenticated by the per-call secret the server gave that
// execution, valid only for its own call while the call is open. Its calls are made as its Crew's owner account
// with its call as the caller of record, and it reaches only the calls it made.
#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "agentworks/sha256.hpp"
#include "agentworks/validation.hpp"
#include "api/body.hpp"
#include "api/handlers.hpp"
#include "api/json_out.hpp"
#include "api/query_params.hpp"
#include "declaration/schema_check.hpp"
#include "store/calls_store.hpp"
#include "store/store.hpp"

namespace agentworks::server::api {

using nlohmann::json;

namespace {

CallRow execution_call(Ctx& c) {
  const auto call = call_by_id(c.store, c.params.at(0));
  if (!call || !call->open() || c.bearer.empty() || sha256_hex(c.bearer) != call->token_hash)
    throw Error(ErrorCode::unauthenticated,
                "this secret is not valid for an open call; `agentworks functions ask` works only inside a running "
                "function execution");
  return *call;
}

constexpr std::size_t kMaxQuestionSchemaBytes = 64 * 1024;

// The optional "schema" of a question: a draft-07 JSON Schema (an object) its answer must satisfy, as JSON text.
std::optional<std::string> question_schema(const json& body) {
  if (!body.contains("schema") || body["schema"].is_null()) return std::nullopt;
  const json& schema = body["schema"];
  if (!schema.is_object()) throw Error(ErrorCode::invalid_input, "schema must be a JSON Schema object");
  std::string text = schema.dump();
  if (text.size() > kMaxQuestionSchemaBytes) throw Error(ErrorCode::invalid_input, "schema is larger than 64 KiB");
  if (auto problem = functions::schema_problem(text)) throw Error(ErrorCode::invalid_input, "schema is " + *problem);
  return text;
}

json answer_json(const CallInput& in) {
  return json{{"request_id", in.request_id},
              {"answered", in.answer.has_value()},
              {"answer", in.answer ? json(*in.answer) : json(nullptr)}};
}

}  // namespace

Response ask_question(Ctx& c) {
  const Body b(c.body, {"question", "schema"});
  const std::string question = b.string("question");
  const auto chars = utf8_length(question);
  if (!chars || blank_text(question) || *chars > kMaxMessageChars)
    throw Error(ErrorCode::bad_request, "question must be 1-20,000 characters of valid UTF-8, not only spaces");
  const auto schema = question_schema(c.body);
  const CallRow call = execution_call(c);
  const CallInput in = add_call_input(c.store, call.call_id, question, schema);
  return json_reply(201, json{{"request_id", in.request_id}});
}

// R-X7: an explicit agent function speaks: each message is recorded, the last one is the call's answer.
Response send_execution_message(Ctx& c) {
  const Body b(c.body, {"text"});
  const std::string text = b.string("text");
  const auto chars = utf8_length(text);
  if (!chars || blank_text(text) || *chars > kMaxSentMessageChars)
    throw Error(ErrorCode::bad_request, "text must be 1-12,000 characters of valid UTF-8, not only spaces");
  const CallRow call = execution_call(c);
  record_sent_message(c.store, call.call_id, text);
  return json_reply(201, json{{"call_id", call.call_id}, {"sent", true}});
}

// R-X7: an explicit agent function declines to answer: the call completes with no answer and a no_reply event.
Response decline_execution_reply(Ctx& c) {
  const Body b(c.body, {"reason"});
  const std::string reason = b.opt_string("reason").value_or("");
  const auto chars = utf8_length(reason);
  if (!chars || *chars > kMaxNoReplyReasonChars)
    throw Error(ErrorCode::bad_request, "reason must be at most 500 characters of valid UTF-8");
  const CallRow call = execution_call(c);
  record_no_reply(c.store, call.call_id, reason);
  return json_reply(200, json{{"call_id", call.call_id}, {"declined", true}});
}

Response get_question(Ctx& c) {
  const CallRow call = execution_call(c);
  const int wait = static_cast<int>(int_query(c, "wait_seconds", 0, kMaxWaitSeconds, 0));
  const auto in = call_input(c.store, call.call_id, c.params.at(1));
  if (!in) throw Error(ErrorCode::not_found, "no question " + c.params.at(1) + " on this call");
  if (in->answer || wait == 0) return json_reply(200, answer_json(*in));
  Response r;
  r.call_wait = CallWait{call.call_id, "", wait, 200,
                         [&store = c.store, id = call.call_id, rid = in->request_id](bool final) -> std::optional<std::string> {
                           const auto now_in = call_input(store, id, rid);
                           if (!now_in) return std::nullopt;
                           if (!final && !now_in->answer) return std::nullopt;
                           return dump(answer_json(*now_in));
                         }};
  return r;
}

namespace {

// The same handler the people's routes use, as the execution: params[0] is the execution's call, the rest are the
// handler's own.
Response as_execution(Ctx& c, Response (*handler)(Ctx&)) {
  const CallRow parent = execution_call(c);
  Connection execution;
  execution.connection_id = parent.call_id;
  execution.account_id = parent.crew_account;
  execution.kind = "execution";
  const std::vector<std::string> params(c.params.begin() + 1, c.params.end());
  Ctx scoped{c.store, c.presence, execution, params, c.query, c.body, c.last_event_id, c.bearer};
  return handler(scoped);
}

}  // namespace

Response execution_list_functions(Ctx& c) { return as_execution(c, list_functions); }
Response execution_call_function(Ctx& c) { return as_execution(c, call_function); }
Response execution_get_call(Ctx& c) { return as_execution(c, get_call); }
Response execution_reply_call(Ctx& c) { return as_execution(c, reply_call); }
Response execution_cancel_call(Ctx& c) { return as_execution(c, cancel_call); }

}  // namespace agentworks::server::api
