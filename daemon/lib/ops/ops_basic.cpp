// Local ops: ping, help, status, lookup, cleanup, shutdown. None of them touches the network, except `status`
// when asked for server counts.
#include <unistd.h>

#include <memory>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "bridge.hpp"
#include "delivery/delivery_notices.hpp"
#include "delivery/waiting_count.hpp"
#include "native/native_router.hpp"
#include "ops/command_table.hpp"
#include "ops/ops.hpp"
#include "request/request_fields.hpp"

namespace agentworks::bridge {

using nlohmann::json;

void op_ping(Bridge& bridge, const json&, const Reply& reply, const AttachmentRow*) {
#ifdef AGENTWORKS_FAILPOINTS
  constexpr bool failpoints = true;
#else
  constexpr bool failpoints = false;
#endif
  reply.ok({{"pong", true}, {"pid", ::getpid()}, {"version", bridge.options().version}, {"failpoints", failpoints}});
}

void op_help(Bridge&, const json&, const Reply& reply, const AttachmentRow*) {
  json ops = json::array();
  for (const auto& c : commands()) ops.push_back({{"op", std::string(c.op)}, {"help", std::string(c.help)}});
  reply.ok({{"protocol", kLocalProtocolVersion}, {"ops", ops}});
}

namespace {

// The folder the chat was attached from (a typed attach records it), null when not known.
json project_of(Bridge& bridge, const AttachmentRow& row) {
  auto cwd = bridge.journal().attachment_cwd(row.attachment_id);
  return cwd.empty() ? json(nullptr) : json(std::move(cwd));
}

// The runners of the Crews this computer serves (R-R1): crew_name, pid (0 while not running), restarts, last_exit.
json runners_json(Bridge& bridge) {
  json out = json::array();
  for (const auto& r : bridge.runner_states())
    out.push_back({{"crew_name", r.crew_name}, {"pid", r.pid}, {"restarts", r.restarts},
                   {"last_exit", r.last_exit >= 0 ? json(r.last_exit) : json(nullptr)}});
  return out;
}

json status_answer(Bridge& bridge, json list) {
  return {{"pid", ::getpid()},
          {"version", bridge.options().version},
          {"protocol", kLocalProtocolVersion},
          {"state_dir", bridge.options().state_dir.string()},
          {"attachments", std::move(list)},
          {"outbox_queued", bridge.outbox().queued()},
          {"cached_body_bytes", bridge.journal().total_body_bytes()},
          {"runners", runners_json(bridge)}};
}

// R-H8: while a chat's stream is down the local cache does not see what the server holds for it, so its
// `pending` would be a false 0. With `server_counts:true` (`agentworks status --agents`) those rows are counted
// on the server (one bounded mailbox read each, in parallel): `pending_source` "server" with `pending` local +
// stored on the server (`pending_more` when over one page), or "unknown" with `pending` null when it cannot be
// asked. Rows with a connected stream, and every row without the flag, are "bridge": the cache is current.
void count_on_server(Bridge& bridge, json list, const std::vector<AttachmentRow>& rows, const Reply& reply) {
  auto state = std::make_shared<std::pair<json, std::size_t>>(std::move(list), 0);
  std::vector<std::size_t> asked;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    auto& entry = state->first[i];
    if (rows[i].state == AttachmentState::offline ||
        (rows[i].state == AttachmentState::attached && entry.value("stream", "") != "connected")) {
      asked.push_back(i);
    }
  }
  state->second = asked.size();
  if (asked.empty()) {
    reply.ok(status_answer(bridge, std::move(state->first)));
    return;
  }
  for (const auto i : asked) {
    count_waiting(
        bridge, rows[i], reply,
        [&bridge, state, i, reply](std::optional<WaitingCount> w) {
          auto& entry = state->first[i];
          if (w) {
            entry["pending"] = w->count;
            entry["pending_source"] = "server";
            if (w->more) entry["pending_more"] = true;
          } else {
            entry["pending"] = nullptr;
            entry["pending_source"] = "unknown";
          }
          if (--state->second == 0) reply.ok(status_answer(bridge, std::move(state->first)));
        },
        2000);
  }
}

}  // namespace

void op_status(Bridge& bridge, const json& req, const Reply& reply, const AttachmentRow*) {
  json list = json::array();
  const auto rows = bridge.journal().attachments();
  for (const auto& row : rows) {
    const auto counts = bridge.journal().counts(row.attachment_id);
    list.push_back({{"agent_name", row.agent_name},
                    {"provider", row.provider},
                    {"session_id", row.session_id},
                    {"attachment_id", row.attachment_id},
                    {"purpose", row.purpose},
                    {"project", project_of(bridge, row)},
                    {"server_url", row.server_url},
                    {"state", std::string(to_string(row.state))},
                    {"stream", bridge.stream_state(row.attachment_id)},
                    {"channel_listeners", bridge.channel_waiters().listening(row.attachment_id)},
                    {"pending", counts.pending},
                    {"pending_source", "bridge"},
                    {"offered_not_admitted", counts.offered_not_admitted},
                    {"withheld", counts.withheld},
                    {"admitted", counts.admitted},
                    {"processed", counts.processed},
                    {"delivery", native::route_json(bridge.native().view(row.attachment_id))}});
    add_held_and_lost(bridge, row, counts, list.back());
    if (const auto note = bridge.chat_turns().last_note(row.attachment_id)) {  // R-X5: for the person
      list.back()["turn_note"] = note->text;
      list.back()["turn_note_at"] = note->at;
    }
    if (const auto loss = bridge.journal().name_loss(row.attachment_id)) {  // R-H7: who took the name
      list.back()["lost_to"] = loss->taken_by.empty() ? std::string("another chat") : loss->taken_by;
      list.back()["lost_at"] = loss->taken_at;
    }
  }
  if (optional_bool(req, "server_counts", false)) {
    count_on_server(bridge, std::move(list), rows, reply);
    return;
  }
  reply.ok(status_answer(bridge, std::move(list)));
}

void op_lookup(Bridge& bridge, const json& req, const Reply& reply, const AttachmentRow*) {
  const auto key = session_key(req);
  const auto row = bridge.journal().find_attachment(key.provider, key.session_id);
  if (!row) {
    reply.ok({{"attached", false}});
    return;
  }
  reply.ok({{"attached", row->state == AttachmentState::attached},
            {"state", std::string(to_string(row->state))},
            {"agent_name", row->agent_name},
            {"attachment_id", row->attachment_id},
            {"pending", bridge.journal().counts(row->attachment_id).pending}});
}

void op_cleanup(Bridge& bridge, const json&, const Reply& reply, const AttachmentRow*) {
  const auto r = bridge.journal().cleanup(Bridge::now(), CleanupScope::by_person);
  bridge.room_freed();
  reply.ok({{"processed_removed", r.processed_removed}, {"offered_removed", r.offered_removed},
            {"possibly_lost_cleared", r.possibly_lost_cleared}});
}

void op_shutdown(Bridge& bridge, const json&, const Reply& reply, const AttachmentRow*) {
  reply.ok({{"stopping", true}});
  bridge.shutdown(0);
}

}  // namespace agentworks::bridge
