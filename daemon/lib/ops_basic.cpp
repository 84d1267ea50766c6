// Local-only ops: ping, help, status, lookup, cleanup, shutdown. None of them touches the network.
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "bridge.hpp"
#include "native/native_router.hpp"
#include "command_table.hpp"
#include "delivery_notices.hpp"
#include "ops.hpp"
#include "request_fields.hpp"

namespace agentworks::bridge {

using nlohmann::json;

void op_ping(Bridge& bridge, const json&, const Reply& reply) {
#ifdef AGENTWORKS_FAILPOINTS
  constexpr bool failpoints = true;
#else
  constexpr bool failpoints = false;
#endif
  reply.ok({{"pong", true}, {"pid", ::getpid()}, {"version", bridge.options().version}, {"failpoints", failpoints}});
}

void op_help(Bridge&, const json&, const Reply& reply) {
  json ops = json::array();
  for (const auto& c : commands()) ops.push_back({{"op", std::string(c.op)}, {"help", std::string(c.help)}});
  reply.ok({{"protocol", kLocalProtocolVersion}, {"ops", ops}});
}

void op_status(Bridge& bridge, const json&, const Reply& reply) {
  json list = json::array();
  for (const auto& row : bridge.journal().attachments()) {
    const auto counts = bridge.journal().counts(row.attachment_id);
    list.push_back({{"agent_name", row.agent_name},
                    {"provider", row.provider},
                    {"session_id", row.session_id},
                    {"attachment_id", row.attachment_id},
                    {"purpose", row.purpose},
                    {"server_url", row.server_url},
                    {"state", row.state},
                    {"stream", bridge.stream_state(row.attachment_id)},
                    {"pending", counts.pending},
                    {"offered_not_admitted", counts.offered_not_admitted},
                    {"withheld", counts.withheld},
                    {"delivery", native::route_json(bridge.native().view(row.attachment_id))}});
    add_held_and_lost(bridge, row, counts, list.back());
  }
  reply.ok({{"pid", ::getpid()},
            {"version", bridge.options().version},
            {"protocol", kLocalProtocolVersion},
            {"state_dir", bridge.options().state_dir.string()},
            {"attachments", list},
            {"outbox_queued", bridge.outbox().queued()},
            {"cached_body_bytes", bridge.journal().total_body_bytes()}});
}

void op_lookup(Bridge& bridge, const json& req, const Reply& reply) {
  const auto key = session_key(req);
  const auto row = bridge.journal().find_attachment(key.provider, key.session_id);
  if (!row) {
    reply.ok({{"attached", false}});
    return;
  }
  reply.ok({{"attached", row->state == "attached"},
            {"state", row->state},
            {"agent_name", row->agent_name},
            {"attachment_id", row->attachment_id},
            {"pending", bridge.journal().counts(row->attachment_id).pending}});
}

void op_cleanup(Bridge& bridge, const json&, const Reply& reply) {
  const auto r = bridge.journal().cleanup(Bridge::now());
  bridge.room_freed();
  reply.ok({{"processed_removed", r.processed_removed}, {"offered_removed", r.offered_removed},
            {"possibly_lost_cleared", r.possibly_lost_cleared}});
}

void op_shutdown(Bridge& bridge, const json&, const Reply& reply) {
  reply.ok({{"stopping", true}});
  bridge.shutdown(0);
}

}  // namespace agentworks::bridge
