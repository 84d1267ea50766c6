// The `activity` op (local only, no network): the newest journaled messages with their delivery times and the
// newest outbox items, for the local status page (`agentworks ui`). Message text never appears in the list; one
// message's cached body is answered only when asked for by `message_id` (the page's per-message reveal).
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "bridge.hpp"
#include "ops/ops.hpp"
#include "request/request_fields.hpp"

namespace agentworks::bridge {

using nlohmann::json;

namespace {

json optional_time(const std::optional<std::int64_t>& at) { return at ? json(*at) : json(nullptr); }

json delivery_json(const DeliveryEntry& e, const std::map<std::string, AttachmentRow>& rows) {
  json out = {{"message_id", e.message_id},
              {"attachment_id", e.attachment_id},
              {"seq", e.seq},
              {"state", std::string(to_string(e.state))},
              {"received_at", e.received_at},
              {"offered_at", optional_time(e.offered_at)},
              {"admitted_at", optional_time(e.admitted_at)},
              {"processed_at", optional_time(e.processed_at)},
              {"body_cached", e.body_cached},
              {"agent_name", nullptr},
              {"provider", nullptr},
              {"session_id", nullptr}};
  if (!e.reason.empty()) out["reason"] = e.reason;
  if (const auto it = rows.find(e.attachment_id); it != rows.end()) {
    out["agent_name"] = it->second.agent_name;
    out["provider"] = it->second.provider;
    out["session_id"] = it->second.session_id;
  }
  return out;
}

// Where an outbox item goes: the send's target, the reply's inbox, or the acknowledged message; never its text.
json outbox_target(const OutboxEntry& e) {
  const json body = json::parse(e.body, nullptr, false);
  if (body.is_object()) {
    if (const auto it = body.find("target"); it != body.end() && it->is_string()) return *it;
    if (const auto it = body.find("inbox_id"); it != body.end() && it->is_string()) {
      return "inbox:" + it->get<std::string>();
    }
  }
  return e.path;
}

json outbox_json(const OutboxEntry& e, const std::map<std::string, AttachmentRow>& rows) {
  const auto row = rows.find(e.attachment_id);
  return {{"seq", e.seq},
          {"submission_id", e.submission_id},
          {"attachment_id", e.attachment_id},
          {"agent_name", row != rows.end() ? json(row->second.agent_name) : json(nullptr)},
          {"kind", e.kind},
          {"target", outbox_target(e)},
          {"state", std::string(to_string(e.state))},
          {"attempts", e.attempts},
          {"last_error", e.last_error.empty() ? json(nullptr) : json(e.last_error)},
          {"created_at", e.created_at},
          {"done_at", optional_time(e.done_at)}};
}

}  // namespace

void op_activity(Bridge& bridge, const json& req, const Reply& reply, const AttachmentRow*) {
  auto& journal = bridge.journal();
  std::map<std::string, AttachmentRow> rows;
  for (auto& row : journal.attachments()) rows.emplace(row.attachment_id, row);

  if (const auto message_id = optional_string(req, "message_id", 200)) {
    const auto entry = journal.delivery(*message_id);
    if (!entry) {
      throw Error(ErrorCode::not_found, "the journal holds no message " + *message_id +
                                            " (it was cleaned up or never reached this bridge)");
    }
    json message = delivery_json(*entry, rows);
    const auto body = journal.cached_body(*message_id);
    json parsed = body ? json::parse(*body, nullptr, false) : json(nullptr);
    message["message"] = parsed.is_discarded() ? json(nullptr) : parsed;
    reply.ok({{"message", std::move(message)}});
    return;
  }

  const auto limit = static_cast<int>(optional_int(req, "limit", 30, 1, 200));
  json deliveries = json::array();
  for (const auto& e : journal.recent_deliveries(limit)) deliveries.push_back(delivery_json(e, rows));
  json outbox = json::array();
  for (const auto& e : journal.recent_outbox(limit)) outbox.push_back(outbox_json(e, rows));
  reply.ok({{"deliveries", std::move(deliveries)}, {"outbox", std::move(outbox)}});
}

}  // namespace agentworks::bridge
