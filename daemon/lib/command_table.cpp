#include "command_table.hpp"

#include <chrono>

#include <nlohmann/json.hpp>

#include "agentworks/sqlite.hpp"
#include "bridge.hpp"
#include "log.hpp"
#include "ops.hpp"

namespace agentworks::bridge {

using nlohmann::json;

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"ping", op_ping, "Liveness check. Answers {pong, pid, version}."},
      {"help", op_help, "Lists every op with its help text."},
      {"status", op_status,
       "The bridge and every attachment: agent_name, provider, session_id, attachment_id, state, stream, pending, "
       "offered_not_admitted; plus outbox_queued."},
      {"lookup", op_lookup,
       "{provider, session_id}: is this exact session attached? Local only, never touches the network (the hook's "
       "fast path). Answers {attached, state, agent_name, attachment_id, pending}."},
      {"attach", op_attach,
       "{provider, session_id, agent_name, purpose, config?}: attach this exact session under a name, using the "
       "person's CLI login (config: path of another CLI config). Creates or reuses the agent's child connection and "
       "opens the stream."},
      {"detach", op_detach,
       "{provider, session_id}: end the attachment on the server, revoke its child connection, remove local state."},
      {"offline", op_offline,
       "{provider, session_id}: SessionEnd. The identity stays, delivery stops, messages wait on the server."},
      {"resume", op_resume, "{provider, session_id}: reconnect an offline attachment of the same session."},
      {"take", op_take,
       "{provider, session_id, limit?}: hand out waiting messages (at most 20) after the server's release check; "
       "each is persisted as offered before the answer and never handed out automatically again."},
      {"ack", op_ack,
       "{provider, session_id, message_id, delivery: admitted|processed, via?}: receipt through the durable outbox."},
      {"reply", op_reply,
       "{provider, session_id, inbox_id, message}: reply in that conversation as the attached agent, through the "
       "durable outbox."},
      {"send", op_send,
       "{provider, session_id, target: \"agent:NAME\", message}: send as the attached agent, through the durable "
       "outbox."},
      {"cleanup", op_cleanup,
       "Reclaims processed metadata and offered metadata older than 7 days. Pending bodies and the watermark stay."},
      {"shutdown", op_shutdown, "Stops the bridge cleanly (agentworks daemon stop)."},
  };
  return table;
}

const Command* find_command(std::string_view op) {
  for (const auto& c : commands()) {
    if (c.op == op) return &c;
  }
  return nullptr;
}

std::string greeting_line() {
  json caps = json::array();
  for (const auto& c : commands()) caps.push_back(std::string(c.op));
  const json g = {{"agentworks_bridge", 1}, {"protocol", kLocalProtocolVersion}, {"capabilities", caps}};
  return g.dump() + "\n";
}

void dispatch(Bridge& bridge, std::string_view line, const Reply::Sink& sink) {
  const auto started = std::chrono::steady_clock::now();
  json request = json::parse(line.begin(), line.end(), nullptr, false);
  if (request.is_discarded() || !request.is_object()) {
    sink(error_line(nullptr, ErrorCode::bad_request, "each request must be one JSON object on one line"));
    return;
  }
  json id = nullptr;
  if (const auto it = request.find("id"); it != request.end()) {
    if (!it->is_number_integer() && !it->is_string() && !it->is_null()) {
      sink(error_line(nullptr, ErrorCode::bad_request, "field 'id' must be an integer or a string"));
      return;
    }
    id = *it;
  }
  const Reply reply(std::make_shared<const json>(id), sink);
  const auto op_it = request.find("op");
  if (op_it == request.end() || !op_it->is_string()) {
    reply.error(ErrorCode::bad_request, "field 'op' (a string) is required; send {\"op\":\"help\"} for the list");
    return;
  }
  const std::string op = op_it->get<std::string>();
  const Command* command = find_command(op);
  if (command == nullptr) {
    reply.error(ErrorCode::not_found, "unknown op '" + op + "'; send {\"op\":\"help\"} for the list");
    return;
  }
  if (bridge.stopping()) {
    reply.error(ErrorCode::busy, "the bridge is stopping; start it again with `agentworks daemon start`");
    return;
  }
  try {
    command->handler(bridge, request, reply);
  } catch (const Error& e) {
    reply.error(e.code(), e.what());
  } catch (const sql::SqliteError& e) {
    if (e.fatal()) bridge.fatal(std::string("journal failure during '") + op + "': " + e.what());
    reply.error(ErrorCode::internal, std::string("journal error: ") + e.what());
  } catch (const std::exception& e) {
    log::error(std::string("op ") + op + " failed: " + e.what());
    reply.error(ErrorCode::internal, std::string("internal error: ") + e.what());
  }
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
  if (ms.count() > 100) log::warn("op " + op + " took " + std::to_string(ms.count()) + " ms");
}

}  // namespace agentworks::bridge
