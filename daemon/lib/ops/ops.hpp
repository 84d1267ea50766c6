// The local-socket operations; command_table.cpp lists them with their help text and flags. `session` is the
// attachment dispatch() resolved for a claims_session op (ack, reply, send, read, peers, channel_take), else nullptr.
#pragma once

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
// R-X5: at a turn's end, the final text of a direct agent (asked of the server) as its reply to the one
// conversation of the messages its chat was handed and has not answered; at most once per conversation and last
// message. Nothing is sent for an explicit agent, an empty text, several conversations, or any doubt; nullopt: the
// text was too long to be a message (logged for a direct agent, never cut to fit).
void reply_with_final_text(Bridge& bridge, const AttachmentRow& row, const std::optional<std::string>& final_text);
void op_reply(Bridge& bridge, const nlohmann::json& req, const Reply& reply, const AttachmentRow* session);
void op_send(Bridge& bridge, const nlohmann::json& req, const Reply& reply, const AttachmentRow* session);
void op_deliver(Bridge& bridge, const nlohmann::json& req, const Reply& reply, const AttachmentRow* session);
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

}  // namespace agentworks::bridge
