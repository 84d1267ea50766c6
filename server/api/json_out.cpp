#include "api/json_out.hpp"

#include <nlohmann/json.hpp>

#include "api/json_text.hpp"

namespace agentworks::server {

using nlohmann::json;

namespace {
json opt(const std::optional<std::string>& v) { return v ? json(*v) : json(nullptr); }
json opt(const std::optional<std::int64_t>& v) { return v ? json(*v) : json(nullptr); }
}  // namespace


json delivery_json(const Message& m) {
  return json{{"state", to_string(m.state)},
              {"admitted_at", opt(m.admitted_at)},
              {"processed_at", opt(m.processed_at)},
              {"reply_state", m.is_notice() ? json(nullptr) : json(m.reply_state_text())},
              {"via", opt(m.via)}};
}

std::string message_text(const Message& m, bool mailbox) {
  // The keys in the order dump() gives an object's (sorted), so both renderings of a message read alike.
  std::string out;
  out.reserve(400 + m.body.size());
  out += '{';
  if (m.call_id) {  // a notice about a call (R-D2)
    out += R"("call_id":)";
    append_json_string(out, *m.call_id);
    out += ',';
  }
  out += R"("conversation_id":)";
  append_json_string(out, m.conversation_id);
  out += R"(,"created_at":)";
  out += std::to_string(m.created_at);
  out += R"(,"cursor":")";
  out += mailbox ? 'm' : 'i';
  out += std::to_string(mailbox ? m.seq : m.inbox_seq);
  out += R"(","delivery":{"admitted_at":)";
  append_json_int_or_null(out, m.admitted_at);
  out += R"(,"processed_at":)";
  append_json_int_or_null(out, m.processed_at);
  out += R"(,"reply_state":)";
  if (m.is_notice()) out += "null";
  else append_json_string(out, m.reply_state_text());
  out += R"(,"state":)";
  append_json_string(out, to_string(m.state));
  out += R"(,"via":)";
  append_json_string_or_null(out, m.via);
  out += R"(},"direction":)";
  append_json_string(out, m.direction);
  out += R"(,"inbox_id":)";
  append_json_string(out, m.inbox_id);
  out += R"(,"kind":)";
  append_json_string(out, m.kind);
  out += R"(,"message":)";
  append_json_string(out, m.body);
  out += R"(,"message_id":)";
  append_json_string(out, m.message_id);
  out += R"(,"recipient":{"agent_name":)";
  append_json_string_or_null(out, m.recipient_agent_name);
  out += R"(},"reply_address":)";
  append_json_string(out, m.inbox_id);
  out += R"(,"sender":{"agent_name":)";
  append_json_string_or_null(out, m.sender_agent_name);
  out += R"(,"connection_id":)";
  append_json_string(out, m.sender_conn);
  out += '}';
  if (m.call_status) {
    out += R"(,"status":)";
    append_json_string(out, *m.call_status);
  }
  out += '}';
  return out;
}

json agent_json(const Agent& a, const std::optional<std::vector<std::string>>& allowed_ids, bool connected) {
  json j{{"agent_id", a.agent_id},   {"agent_name", a.name},     {"purpose", a.purpose},
         {"provider", a.provider},   {"connected", connected}, {"created_at", a.created_at},
         {"communication", a.communication}, {"nudge", a.nudge ? "on" : "off"}};
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
              {"state", to_string(a.state)},
              {"created_at", a.created_at},
              {"streams", streams}};
}

json connection_json(const Connection& c) {
  return json{{"connection_id", c.connection_id}, {"kind", c.kind},       {"agent_name", opt(c.agent_name)},
              {"parent_id", opt(c.parent_id)},    {"label", c.label},     {"created_at", c.created_at},
              {"revoked", c.revoked}};
}

json wakeup_json(const Wakeup& w, std::int64_t now) {
  const auto opt = [](const auto& v) { return v ? json(*v) : json(nullptr); };
  return json{{"wakeup_id", w.wakeup_id},   {"agent_name", w.agent_name}, {"note", w.note},
              {"due_at", w.due_at},         {"state", visible_state(w, now)}, {"created_at", w.created_at},
              {"updated_at", w.updated_at}, {"message_id", opt(w.message_id)}, {"fired_at", opt(w.fired_at)}};
}

}  // namespace agentworks::server
