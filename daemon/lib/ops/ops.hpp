// The local-socket operations; command_table.cpp lists them with their help text.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "request/reply.hpp"

namespace agentworks::bridge {

class Bridge;

void op_ping(Bridge& bridge, const nlohmann::json& req, const Reply& reply);
void op_help(Bridge& bridge, const nlohmann::json& req, const Reply& reply);
void op_status(Bridge& bridge, const nlohmann::json& req, const Reply& reply);
void op_lookup(Bridge& bridge, const nlohmann::json& req, const Reply& reply);
void op_cleanup(Bridge& bridge, const nlohmann::json& req, const Reply& reply);
void op_shutdown(Bridge& bridge, const nlohmann::json& req, const Reply& reply);
void op_attach(Bridge& bridge, const nlohmann::json& req, const Reply& reply);
void op_detach(Bridge& bridge, const nlohmann::json& req, const Reply& reply);
void op_offline(Bridge& bridge, const nlohmann::json& req, const Reply& reply);
void op_resume(Bridge& bridge, const nlohmann::json& req, const Reply& reply);
void op_take(Bridge& bridge, const nlohmann::json& req, const Reply& reply);
void op_ack(Bridge& bridge, const nlohmann::json& req, const Reply& reply);
void op_reply(Bridge& bridge, const nlohmann::json& req, const Reply& reply);
void op_send(Bridge& bridge, const nlohmann::json& req, const Reply& reply);
void op_deliver(Bridge& bridge, const nlohmann::json& req, const Reply& reply);
void op_command(Bridge& bridge, const nlohmann::json& req, const Reply& reply);
void op_read(Bridge& bridge, const nlohmann::json& req, const Reply& reply);   // ops_mcp.cpp
void op_peers(Bridge& bridge, const nlohmann::json& req, const Reply& reply);  // ops_mcp.cpp
void op_channel_take(Bridge& bridge, const nlohmann::json& req, const Reply& reply);  // ops_mcp.cpp

}  // namespace agentworks::bridge
