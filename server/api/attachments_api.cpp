// Routes: attachments, their SSE stream and the release check (R-B8, invariant 4 and 5).
#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "agentworks/validation.hpp"
#include "api/body.hpp"
#include "api/handlers.hpp"
#include "api/json_out.hpp"
#include "store/cursor.hpp"
#include "store/store.hpp"
#include "store/wakeups_store.hpp"

namespace agentworks::server::api {

using nlohmann::json;

namespace {

json render(Ctx& c, const Attachment& a) { return attachment_json(a, c.presence.stream_count(a.attachment_id)); }

std::string short_text(const Body& b, const char* key, std::size_t max_chars) {
  const std::string v = b.opt_string(key).value_or("");
  const auto n = utf8_length(v);
  if (!n || *n > max_chars)
    throw Error(ErrorCode::bad_request, std::string(key) + " must be at most " + std::to_string(max_chars) + " characters");
  return v;
}

}  // namespace

Response create_attachment(Ctx& c) {
  const Body b(c.body, {"agent_name", "purpose", "provider", "native_session_id"});
  const std::string name = b.string("agent_name");
  const std::string purpose = short_text(b, "purpose", kMaxPurposeChars);
  const std::string provider = short_text(b, "provider", 64);
  const std::string session = short_text(b, "native_session_id", 200);
  return json_reply(201, render(c, c.store.create_attachment(c.caller, name, purpose, provider, session)));
}

Response list_attachments(Ctx& c) {
  std::optional<std::string> name;
  if (auto it = c.query.find("agent_name"); it != c.query.end()) name = it->second;
  json list = json::array();
  for (const auto& a : c.store.list_attachments(c.caller, name)) list.push_back(render(c, a));
  return json_reply(200, json{{"attachments", list}});
}

Response get_attachment(Ctx& c) { return json_reply(200, render(c, c.store.get_attachment(c.caller, c.params.at(0)))); }

Response detach_attachment(Ctx& c) {
  return json_reply(200, render(c, c.store.detach_attachment(c.caller, c.params.at(0))));
}

Response stream_attachment(Ctx& c) {
  const Attachment a = c.store.get_attachment(c.caller, c.params.at(0));
  std::string cursor = "0";
  if (c.last_event_id) {
    cursor = *c.last_event_id;
  } else if (auto it = c.query.find("after"); it != c.query.end()) {
    cursor = it->second;
  }
  const auto [space, after] = parse_cursor(cursor);
  if (space == 'i') throw Error(ErrorCode::cursor_mismatch, "streams resume from mailbox cursors (m<N>), not i<N>");
  Response r;
  r.stream = StreamStart{a.attachment_id, c.caller.connection_id, after};
  return r;
}

Response release_check(Ctx& c) {
  const Body b(c.body, {"message_ids"});
  const auto ids = b.opt_string_array("message_ids", 100);
  if (!ids) throw Error(ErrorCode::bad_request, "missing field 'message_ids'");
  const Attachment a = c.store.get_attachment(c.caller, c.params.at(0));
  json list = json::array();
  std::vector<std::string> released;
  for (const auto& item : c.store.release_check(a, *ids)) {
    if (item.releasable) released.push_back(item.message_id);
    list.push_back(json{{"message_id", item.message_id},
                        {"releasable", item.releasable},
                        {"reason", item.reason ? json(*item.reason) : json(nullptr)}});
  }
  note_wakeups_offered(c.store, released);  // R-W5: a wakeup released to its chat reads offered
  return json_reply(200, json{{"attachment_current", a.state == AttachmentState::current}, {"messages", list}});
}

}  // namespace agentworks::server::api
