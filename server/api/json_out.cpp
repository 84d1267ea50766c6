#include "api/json_out.hpp"

#include <nlohmann/json.hpp>

namespace agentworks::server {

using nlohmann::json;

namespace {
json opt(const std::optional<std::string>& v) { return v ? json(*v) : json(nullptr); }
json opt(const std::optional<std::int64_t>& v) { return v ? json(*v) : json(nullptr); }
}  // namespace

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

json delivery_json(const Message& m) {
  return json{{"state", m.state}, {"admitted_at", opt(m.admitted_at)}, {"processed_at", opt(m.processed_at)},
              {"via", opt(m.via)}};
}

json message_json(const Message& m, bool mailbox) {
  return json{{"message_id", m.message_id},
              {"conversation_id", m.conversation_id},
              {"inbox_id", m.inbox_id},
              {"cursor", (mailbox ? "m" : "i") + std::to_string(mailbox ? m.seq : m.inbox_seq)},
              {"direction", m.direction},
              {"sender", {{"agent_name", opt(m.sender_agent_name)}, {"connection_id", m.sender_conn}}},
              {"recipient", {{"agent_name", opt(m.recipient_agent_name)}}},
              {"message", m.body},
              {"created_at", m.created_at},
              {"delivery", delivery_json(m)},
              {"reply_address", m.inbox_id}};
}

json agent_json(const Agent& a, const std::optional<std::vector<std::string>>& allowed_ids, bool connected) {
  json j{{"agent_id", a.agent_id}, {"agent_name", a.name},     {"purpose", a.purpose},
         {"provider", a.provider}, {"connected", connected}, {"created_at", a.created_at}};
  if (allowed_ids) j["allowed_connection_ids"] = *allowed_ids;
  return j;
}

json attachment_json(const Attachment& a, int streams) {
  return json{{"attachment_id", a.attachment_id},
              {"agent_id", a.agent_id},
              {"agent_name", a.agent_name},
              {"purpose", a.purpose},
              {"provider", a.provider},
              {"native_session_id", a.native_session_id},
              {"state", a.state},
              {"created_at", a.created_at},
              {"streams", streams}};
}

json connection_json(const Connection& c) {
  return json{{"connection_id", c.connection_id}, {"kind", c.kind},       {"agent_name", opt(c.agent_name)},
              {"parent_id", opt(c.parent_id)},    {"label", c.label},     {"created_at", c.created_at},
              {"revoked", c.revoked}};
}

}  // namespace agentworks::server
