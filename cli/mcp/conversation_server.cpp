#include "mcp/conversation_server.hpp"

#include <iostream>
#include <nlohmann/json.hpp>

#include "agentworks/environment.hpp"
#include "agentworks/error.hpp"
#include "agentworks/server_client.hpp"
#include "mcp/agent_run_tools.hpp"
#include "mcp/jsonrpc.hpp"
#include "output.hpp"

namespace agentworks::cli::mcp {
using nlohmann::json;
namespace {

void log_conversation_server(const std::string& text) {
  std::cerr << "agentworks mcp --conversation: " << text << std::endl;
}

std::string turn_variable(env::Var var) {
  const char* value = env::get(var);
  if (value == nullptr) {
    throw Error(ErrorCode::usage, "`agentworks mcp serve --conversation` only works inside a Crew agent's turn (" +
                                      std::string(env::info(var).name) +
                                      " is not set); the server sets it for the turns it runs");
  }
  return value;
}

const char* const kConversationInstructions =
    "You are the agent of a Crew, talking with a person or another agent in one conversation. Nobody reads your "
    "text or your thinking: the only way to answer is the send_message tool, and what you send is all they see. "
    "When the messages need no answer from you, say so on purpose with no_reply instead of ending silent.";

json conversation_tool_list() {
  return {{"tools", speaking_tools("Send a message into this conversation; the person or agent who wrote to you reads "
                                   "only what you send. Send as often as you need; each message arrives on its own.",
                                   "Say on purpose that these messages need no answer from you. Better than ending "
                                   "silent: the one who wrote sees that you chose not to answer.")}};
}

// What the agent should know beyond the server's message: a turn that ended cannot speak again.
Error explained(const Error& e) {
  if (e.code() != ErrorCode::unauthenticated) return e;
  return Error(e.code(), "this turn has ended, so it can no longer speak; whatever arrives next comes in a new turn "
                         "(server: " + std::string(e.what()) + ")");
}

json conversation_speaking_tool(const ConversationBinding& binding, const std::string& name, const json& args) {
  try {
    ServerClientOptions options;
    options.ca_file = binding.ca_file;
    ServerClient client(binding.server, binding.token, options);
    // Text only: Claude Code hands a result's structuredContent to the model in place of its text.
    const json answer = speak(client, turn_path(binding), name, args);
    if (name == "send_message") {
      return text_result("Sent into the conversation (" + text_or(answer, "message_id") +
                             "). They read it as your answer; send again to say more.",
                         false);
    }
    const auto it = answer.find("declined");
    const long long declined = it != answer.end() && it->is_number_integer() ? it->get<long long>() : 0;
    return text_result("Recorded: you chose not to answer (" + std::to_string(declined) +
                           (declined == 1 ? " message" : " messages") + " declined).",
                       false);
  } catch (const Error& e) {
    log_conversation_server(name + ": " + e.what());
    return error_result(explained(e));
  }
}

json conversation_dispatch(const ConversationBinding& binding, const std::string& method, const json& params) {
  if (method == "initialize") return initialize_answer(params, kConversationInstructions);
  if (method == "ping") return json::object();
  if (method == "tools/list") return conversation_tool_list();
  if (method == "tools/call") {
    const std::string name =
        params.contains("name") && params["name"].is_string() ? params["name"].get<std::string>() : "";
    if (is_speaking_tool(name))
      return conversation_speaking_tool(binding, name,
                                        params.contains("arguments") ? params["arguments"] : json::object());
    throw RpcError(rpc_invalid_params, "unknown tool '" + name + "'; tools/list names the tools");
  }
  throw RpcError(rpc_method_not_found, "unknown method '" + method + "'");
}

}  // namespace

ConversationBinding conversation_binding() {
  ConversationBinding b;
  b.server = turn_variable(env::Var::execution_server);
  b.conversation_id = turn_variable(env::Var::conversation_id);
  b.token = turn_variable(env::Var::turn_token);
  if (const char* ca = env::get(env::Var::execution_server_ca_file)) b.ca_file = ca;
  return b;
}

std::string turn_path(const ConversationBinding& binding) { return "/v1/turns/" + url_encode(binding.conversation_id); }

void serve_conversation(std::istream& in, std::ostream& out, const ConversationBinding& binding) {
  try {
    LineWriter writer(out);
    RpcHandlers handlers;
    handlers.dispatch = [&binding](const std::string& method, const json& params) {
      return conversation_dispatch(binding, method, params);
    };
    handlers.log = log_conversation_server;
    std::string line;
    while (std::getline(in, line)) handle_rpc_line(line, writer, handlers);
  } catch (const std::exception& e) {
    log_conversation_server(std::string("stopped: ") + e.what());
  }
}

}  // namespace agentworks::cli::mcp
