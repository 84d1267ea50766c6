// Routes: send, read (with long poll), receipts, inbox metadata (R-M1, R-M2, R-M3, R-M7, R-M14).
#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "agentworks/validation.hpp"
#include "api/body.hpp"
#include "api/handlers.hpp"
#include "api/json_out.hpp"
#include "api/page.hpp"
#include "api/query_params.hpp"
#include "crews/crew_talk.hpp"
#include "store/store.hpp"

namespace agentworks::server::api {

using nlohmann::json;

namespace {

std::optional<std::string> query(Ctx& c, const char* key) { return query_text(c, key); }

int int_param(Ctx& c, const char* key, int lo, int hi, int fallback) {
  return static_cast<int>(int_query(c, key, lo, hi, fallback));
}

json receipt_json(const Message& m) { return json{{"message_id", m.message_id}, {"delivery", delivery_json(m)}}; }

}  // namespace

Response send_message(Ctx& c) {
  const Body b(c.body, {"target", "inbox_id", "message", "agent_name", "submission_id"});
  SendInput in;
  in.target = b.opt_string("target");
  in.inbox_id = b.opt_string("inbox_id");
  in.message = b.string("message");
  in.agent_name = b.opt_string("agent_name");
  in.submission_id = b.opt_string("submission_id");
  functions::admit_crew_message(c.store, c.caller, in);
  const Receipt r = c.store.send(c.caller, in);
  return json_reply(r.repeated ? 200 : 201, json{{"accepted", true},
                                                 {"message_id", r.message_id},
                                                 {"conversation_id", r.conversation_id},
                                                 {"inbox_id", r.inbox_id}});
}

Response read_messages(Ctx& c) {
  ReadInput in;
  in.inbox_id = query(c, "inbox_id");
  in.agent_name = query(c, "agent_name");
  in.after = query(c, "after");
  const int limit = int_param(c, "limit", 1, kMaxReadLimit, kMaxReadLimit);
  const int wait = int_param(c, "wait_seconds", 0, kMaxWaitSeconds, 0);
  const ReadTarget target = c.store.resolve_read(c.caller, in);
  const std::string after = in.after.value_or("0");
  const auto messages = c.store.fetch(target, limit);
  if (messages.empty() && wait > 0) {
    Response r;
    r.long_poll = LongPoll{target, limit, wait, after, c.caller.connection_id};
    return r;
  }
  Response r;
  r.body = page_text(messages, target.mailbox, after);
  return r;
}

Response get_receipt(Ctx& c) { return json_reply(200, receipt_json(c.store.receipt_get(c.caller, c.params.at(0)))); }

Response set_receipt(Ctx& c) {
  const Body b(c.body, {"delivery", "via", "reply_state"});
  const auto reply_state = b.opt_string("reply_state");
  if (reply_state && *reply_state != "no_reply" && *reply_state != "unanswered")
    throw Error(ErrorCode::bad_request,
                "reply_state may only be \"no_reply\" or \"unanswered\" (a reply is made by sending one)");
  const Message m = c.store.receipt_set(c.caller, c.params.at(0), b.string("delivery"), b.opt_string("via"), reply_state);
  return json_reply(200, receipt_json(m));
}

Response get_inbox(Ctx& c) {
  const Conversation conv = c.store.inbox_info(c.caller, c.params.at(0));
  json j{{"inbox_id", conv.inbox_id},
         {"conversation_id", conv.conversation_id},
         {"state", to_string(conv.state)},
         {"target", {{"agent_name", conv.target_agent_name}}},
         {"initiator",
          {{"agent_name", conv.initiator_agent_name ? json(*conv.initiator_agent_name) : json(nullptr)},
           {"connection_id", conv.initiator_conn}}},
         {"created_at", conv.created_at},
         {"last_activity", conv.last_activity},
         {"expired_at", conv.expired_at ? json(*conv.expired_at) : json(nullptr)}};
  if (conv.state == ConversationState::open) j["message_count"] = conv.message_count;
  return json_reply(200, j);
}

}  // namespace agentworks::server::api
