// The local-socket operations; command_table.cpp lists them with their help text and flags. `session` is the
// attachment dispatch() resolved for a claims_session op (ack, reply, send, read, peers, channel_take), else nullptr.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "request/reply.hpp"

namespace agentworks::bridge {

class Bridge;
struct AttachmentRow;

void op_ping(Bridge& bridge, const nlohmann::json& req, const Reply& reply, const AttachmentRow* session);
void op_help(Bridge& bridge, const nlohmann::json& req, const Reply& reply, const AttachmentRow* session);
void op_status(Bridge& bridge, const nlohmann::json& req, const Reply& reply, const AttachmentRow* session);
void op_lookup(Bridge& bridge, const nlohmann::json& req, const Reply& reply, const AttachmentRow* session);
void op_activity(Bridge& bridge, const nlohmann::json& req, const Reply& reply, const AttachmentRow* session);
void op_cleanup(Bridge& bridge, const nlohmann::json& req, const Reply& reply, const AttachmentRow* session);
void op_shutdown(Bridge& bridge, const nlohmann::json& req, const Reply& reply, const AttachmentRow* session);
void op_attach(Bridge& bridge, const nlohmann::json& req, const Reply& reply, const AttachmentRow* session);
void op_detach(Bridge& bridge, const nlohmann::json& req, const Reply& reply, const AttachmentRow* session);
void op_offline(Bridge& bridge, const nlohmann::json& req, const Reply& reply, const AttachmentRow* session);
void op_resume(Bridge& bridge, const nlohmann::json& req, const Reply& reply, const AttachmentRow* session);
void op_take(Bridge& bridge, const nlohmann::json& req, const Reply& reply, const AttachmentRow* session);
void op_ack(Bridge& bridge, const nlohmann::json& req, const Reply& reply, const AttachmentRow* session);
void op_no_reply(Bridge& bridge, const nlohmann::json& req, const Reply& reply, const AttachmentRow* session);
// A Stop of an attached chat (ops_turn_end.cpp).
struct TurnEnd {
  std::optional<std::string> final_text;  // the Stop's last assistant message
  bool final_text_too_long = false;       // the hook found it too long to pass (never cut to fit)
  bool may_continue = false;              // the loop guard leaves room to continue the turn once more
};
// How long a Stop waits for the server to say how the agent talks.
inline constexpr long kTurnEndTimeoutMs = 5000;
// R-X5 then R-X3, for the messages the ending turn was handed and neither answered nor declined (none: `then` at
// once, no server call). A direct agent's final text is the reply to their one conversation, at most once per
// conversation and last message. What is still silent is asked about once, in the same turn (`then` gets the
// question, to continue the turn with), when the agent's nudge is on and the loop guard allows; asked before, or
// not to be asked, it reads `unanswered` for its sender. In any doubt nothing changes. `then` is called once.
void end_of_turn(Bridge& bridge, const AttachmentRow& row, const TurnEnd& end,
                 std::function<void(const std::string& nudge)> then);
void op_reply(Bridge& bridge, const nlohmann::json& req, const Reply& reply, const AttachmentRow* session);
void op_send(Bridge& bridge, const nlohmann::json& req, const Reply& reply, const AttachmentRow* session);
void op_deliver(Bridge& bridge, const nlohmann::json& req, const Reply& reply, const AttachmentRow* session);
void op_turn_start(Bridge& bridge, const nlohmann::json& req, const Reply& reply, const AttachmentRow* session);
void op_command(Bridge& bridge, const nlohmann::json& req, const Reply& reply, const AttachmentRow* session);
// ops_mcp.cpp:
void op_read(Bridge& bridge, const nlohmann::json& req, const Reply& reply, const AttachmentRow* session);
void op_peers(Bridge& bridge, const nlohmann::json& req, const Reply& reply, const AttachmentRow* session);
void op_function(Bridge& bridge, const nlohmann::json& req, const Reply& reply, const AttachmentRow* session);
void op_wakeup(Bridge& bridge, const nlohmann::json& req, const Reply& reply, const AttachmentRow* session);
// One server request as the chat's agent (its child token), answered {agent_name, answer: the server's object}; a
// chat without a stored child connection is `fenced` (ops_function.cpp).
void relay_as_agent(Bridge& bridge, const AttachmentRow& row, const std::string& method, const std::string& path,
                    const nlohmann::json& body, const Reply& reply, long timeout_ms);
// Journals one outbox request (kind ack|reply|send|call) unless the same submission id already did: then answers
// its recorded outcome, or `conflict` for a different request (ops_outbox.cpp).
void submit_once(Bridge& bridge, const AttachmentRow& row, const std::string& kind, const std::string& path,
                 const nlohmann::json& body, const std::string& id, const Reply& reply);
void op_channel_take(Bridge& bridge, const nlohmann::json& req, const Reply& reply, const AttachmentRow* session);
void op_steer_wait(Bridge& bridge, const nlohmann::json& req, const Reply& reply, const AttachmentRow* session);
void op_steer_result(Bridge& bridge, const nlohmann::json& req, const Reply& reply, const AttachmentRow* session);

}  // namespace agentworks::bridge
