// What the stdio MCP servers of the agents the agentworks server runs have in common: a function's execution
// (`mcp serve --call`, call_server.hpp) and a Crew agent's conversation turn (`mcp serve --conversation`,
// conversation_server.hpp). Both are bound by a per-run secret from their environment, answer initialize the same
// way, turn every failure into a tool result with the stable code, and speak through send_message and no_reply.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "agentworks/error.hpp"
#include "agentworks/server_client.hpp"

namespace agentworks::cli::mcp {

// The answer to initialize: the negotiated protocol version, the tools capability, the server name "agentworks"
// (so the agent's tools read mcp__agentworks__…) and `instructions`.
nlohmann::json initialize_answer(const nlohmann::json& params, const std::string& instructions);

// A tool result with one text content.
nlohmann::json text_result(const std::string& text, bool is_error);
// A failure as the agent sees it: "agentworks: MESSAGE [code]", isError, and {"error":{"code","message"}} as its
// structuredContent.
nlohmann::json error_result(const Error& e);

// Refuses (Error bad_request) arguments that are neither an object nor null or hold a field other than `allowed`.
void check_arguments(const nlohmann::json& args, std::initializer_list<std::string_view> allowed);
// args[key] as a non-empty string, else Error(bad_request) naming it.
std::string string_argument(const nlohmann::json& args, const char* key);

// The two tools by which a run speaks (R-X7 for an explicit function, R-K2 for a Crew agent), each with the
// description its server gives it: send_message {text} and no_reply {reason?}.
nlohmann::json speaking_tools(std::string_view send_message_description, std::string_view no_reply_description);
inline bool is_speaking_tool(std::string_view name) { return name == "send_message" || name == "no_reply"; }

// Calls a speaking tool: send_message posts {text, submission_id?} to `base`/messages, no_reply posts {reason?} to
// `base`/no-reply, with `client`'s per-run secret. Returns the server's answer; a bad argument or a refusal is
// thrown as the Error.
nlohmann::json speak(ServerClient& client, const std::string& base, std::string_view name,
                     const nlohmann::json& args, const std::string& submission_id = {});

// A function tool's action ("list", "call", "status", "reply", "cancel") through `scope`'s routes with its secret:
// "/v1/calls/CALL_ID" for an execution (R-D4), "/v1/turns/CONVERSATION_ID" for a Crew agent's turn (R-K2). Unknown
// arguments are Error(bad_request); the server's answer is returned as it is.
nlohmann::json run_function_tool(ServerClient client, const std::string& scope, const std::string& action,
                                 const nlohmann::json& args);

}  // namespace agentworks::cli::mcp
