#include "ops/command_table.hpp"

#include <chrono>
#include <optional>

#include <nlohmann/json.hpp>

#include "agentworks/local_protocol.hpp"
#include "agentworks/sqlite.hpp"
#include "bridge.hpp"
#include "identity/session_resolver.hpp"
#include "native/native_router.hpp"
#include "ops/ops.hpp"
#include "platform/log.hpp"
#include "request/request_fields.hpp"

namespace agentworks::bridge {

using nlohmann::json;


const std::vector<Command>& commands() {
  namespace op = local_protocol::op;
  // Every op either registers the caller's process (a hook's request names its own session) or claims a session
  // through session_resolver (the messaging ops); both parse `process` first, so a malformed one is refused alike.
  constexpr unsigned kHookEvent = registers_process | binds_native;
  static const std::vector<Command> table = {
      {op::ping, op_ping, registers_process, "Liveness check. Answers {pong, pid, version}."},
      {op::help, op_help, registers_process, "Lists every op with its help text."},
      {op::status, op_status, registers_process,
       "The bridge and every attachment: agent_name, provider, session_id, attachment_id, state, stream, pending, "
       "offered_not_admitted; plus outbox_queued."},
      {op::lookup, op_lookup, kHookEvent,
       "{provider, session_id}: is this exact session attached? Local only, never touches the network (the hook's "
       "fast path). Answers {attached, state, agent_name, attachment_id, pending}."},
      {op::attach, op_attach, registers_process,
       "{provider, session_id, agent_name, purpose, config?, process?, native?, native_remote?, provider_home?}: "
       "attach this exact session under a name, using the person's CLI login (config: path of another CLI config; "
       "process: the provider process key {pid, start}, stored with the attachment; native: false turns native "
       "delivery off; native_remote: a Codex app server unix:///SOCKET; provider_home: the provider's absolute home "
       "directory). Creates or reuses the agent's child connection and opens the stream."},
      {op::detach, op_detach, registers_process,
       "{provider, session_id}: end the attachment on the server, revoke its child connection, remove local state."},
      {op::offline, op_offline, registers_process,
       "{provider, session_id}: SessionEnd. The identity stays, delivery stops, messages wait on the server."},
      {op::resume, op_resume, registers_process,
       "{provider, session_id, process}: reconnect an offline attachment of the same session; process is the "
       "current provider process key {pid, start} (required)."},
      {op::take, op_take, registers_process,
       "{provider, session_id, limit?}: hand out waiting messages (at most 20) after the server's release check; "
       "each is persisted as offered before the answer and never handed out automatically again."},
      {op::ack, op_ack, claims_session,
       "{provider, session_id, message_id, delivery: admitted|processed, via?}: receipt through the durable outbox."},
      {op::no_reply, op_no_reply, claims_session,
       "{provider, session_id, message_id, reason?}: decline to answer a message on purpose (R-X2): the sender's "
       "receipt reads processed and reply_state no_reply through the durable outbox; the reason (at most 500 "
       "characters) stays in this bridge's log and is never sent."},
      {op::reply, op_reply, claims_session,
       "{provider, session_id, inbox_id | message_id, message}: reply in that conversation as the attached agent, "
       "through the durable outbox."},
      {op::send, op_send, claims_session,
       "{provider, session_id, target: \"agent:NAME\", message}: send as the attached agent, through the durable "
       "outbox."},
      {op::read, op_read, claims_session,
       "{provider+session_id | process, after?, limit? (1-100)}: bounded mailbox read as the attached agent, "
       "filtered by the server's release check. Answers {agent_name, messages, next_cursor, filtered}."},
      {op::channel_take, op_channel_take, claims_session,
       "{process (+ provider/session_id for Codex), limit?, wait_ms? (0-60000)}: `take` for the session of the "
       "caller's provider process (the Claude channel of `agentworks mcp serve --claude-channel`). With wait_ms and "
       "nothing waiting, the answer is parked until the stream caches a message, the attachment ends, or wait_ms "
       "passes (then it is empty)."},
      {op::steer_wait, op_steer_wait, claims_session,
       "{provider: pi, session_id, process, wait_ms? (0-60000, default 25000), pi_version, unusable?, fresh?}: the "
       "agentworks Pi extension's parked wait (Pi's native route). Answers {push: {push_id, text}} once a push is "
       "offered (persisted first), {push: null} when the wait passes, or {push: null, route: off, reason} when this "
       "Pi cannot be steered (an unverified version, or `unusable` says why); fresh: a new extension instance. An "
       "offline or fenced attachment is not_found (the extension asks again)."},
      {op::steer_result, op_steer_result, claims_session,
       "{provider: pi, session_id, process, push_id, outcome: written|refused, detail?}: what became of a push. "
       "written settles it; refused (nothing was handed to Pi) returns its messages to pending and turns the route "
       "off; no result within 10 s is ambiguous (offered, the person is told). Answers {settled}."},
      {op::peers, op_peers, claims_session,
       "{provider+session_id | process}: the same account's other agents: agent_name, purpose, provider, connected."},
      {op::wakeup, op_wakeup, claims_session,
       "{provider+session_id | process, action: schedule|cancel|list, after_minutes?, at?, note?, wakeup_id?}: the "
       "durable wakeups of this chat's agent (R-W1), with its child connection. Answers {agent_name, answer: the "
       "server's Wakeup or {agent_name, paused, wakeups}}."},
      {op::function, op_function, claims_session,
       "{provider+session_id | process, action: list|call|status|reply|cancel, target?, function?, arguments?, "
       "submission_id?, notify?, call_id?, after?, message_limit?, after_event?, request_id?, answer?}: the Crew "
       "functions the person granted this chat's agent (R-D1), with its child connection. call always carries a "
       "submission_id (minted when none is given), goes through the durable outbox (answers as a send does: "
       "{state: sent, submission_id, answer} or {queued, submission_id, note}) and notifies the agent of the outcome "
       "unless notify is false. The other actions answer {agent_name, answer: the server's object}."},
      {op::deliver, op_deliver, kHookEvent,
       "{provider, session_id, stop_hook_active?, loop_count?, max_continuations? (0-8, default 3), max_chars? "
       "(2000-100000, default 9500), process?, provider_home?}: the Stop hook's delivery. Answers {attached} alone "
       "for an unknown session (no network); else {state, text, message_ids, guidance, pending, held, guarded}: the "
       "oldest-first messages that fit max_chars UTF-16 units, labelled as other agents' messages, offered once."},
      {op::turn_start, op_turn_start, kHookEvent,
       "{provider, session_id}: a prompt the person typed started a turn of this chat (R-X3: messages pushed into "
       "it meanwhile are the next turn's). Answers {attached}; no network."},
      {op::command, op_command, kHookEvent,
       "{provider, session_id, verb: attach|status|detach|resume|cleanup, name?, purpose?, confirm?, take?, cwd?, "
       "config?, process?, native?, native_remote?, provider_home?}: a person's typed /agentworks command. attach "
       "without name proposes a unique name, confirm:true attaches under it, take:true takes the name from another "
       "connected chat (native, native_remote, provider_home: as for attach); every success has `text` for the "
       "person."},
      {op::activity, op_activity, registers_process,
       "{limit? (1-200, default 30)}: the newest journaled messages (delivery state and times, no text) and outbox "
       "items (kind, target, outcome); {message_id}: that one message, with its cached body while still pending."},
      {op::cleanup, op_cleanup, registers_process,
       "Reclaims processed metadata and offered metadata older than 7 days. Pending bodies and the watermark stay."},
      {op::shutdown, op_shutdown, registers_process, "Stops the bridge cleanly (agentworks daemon stop)."},
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

namespace {

// registers_process (docs/protocol.md "Hook ops"): the one place the registry is written, whichever op it is; with
// binds_native, a hook event of an attached session (re)binds its native route to this process (R-N1).
void register_hook_process(Bridge& bridge, const Command& command, const json& request) {
  const auto process = optional_process(request);
  if (!process || !request.contains("provider") || !request.contains("session_id")) return;
  const auto key = session_key(request);
  bridge.registry().record(*process, key);
  if ((command.flags & binds_native) != 0) {
    auto home = optional_string(request, "provider_home", 4096);
    if (home && (home->empty() || home->front() != '/')) home.reset();
    bridge.native().observe(key, process, home);
  }
}

}  // namespace

void dispatch(Bridge& bridge, std::string_view line, const Reply::Transport& sink,
              const Reply::Connected& connected) {
  const auto started = std::chrono::steady_clock::now();
  json request = json::parse(line.begin(), line.end(), nullptr, false);
  if (request.is_discarded() || !request.is_object()) {
    sink(error_line(nullptr, ErrorCode::bad_request, "each request must be one JSON object on one line"), nullptr);
    return;
  }
  json id = nullptr;
  if (const auto it = request.find("id"); it != request.end()) {
    if (!it->is_number_integer() && !it->is_string() && !it->is_null()) {
      sink(error_line(nullptr, ErrorCode::bad_request, "field 'id' must be an integer or a string"), nullptr);
      return;
    }
    id = *it;
  }
  const Reply reply(std::make_shared<const json>(id), sink, connected);
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
    // The table row's flags, once, before the op (command_table.hpp OpFlag).
    if ((command->flags & registers_process) != 0) register_hook_process(bridge, *command, request);
    std::optional<AttachmentRow> session;
    if ((command->flags & claims_session) != 0) session = resolve_usable_attachment(bridge, request);
    command->handler(bridge, request, reply, session ? &*session : nullptr);
  } catch (const Error& e) {
    reply.error(e.code(), e.what());
  } catch (const sql::SqliteError& e) {
    bridge.journal_fatal("during '" + op + "'", e);
    reply.error(ErrorCode::internal, std::string("journal error: ") + e.what());
  } catch (const std::exception& e) {
    log::error(std::string("op ") + op + " failed: " + e.what());
    reply.error(ErrorCode::internal, std::string("internal error: ") + e.what());
  }
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
  if (ms.count() > 100) log::warn("op " + op + " took " + std::to_string(ms.count()) + " ms");
}

}  // namespace agentworks::bridge
