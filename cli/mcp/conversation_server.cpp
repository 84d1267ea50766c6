#include "mcp/conversation_server.hpp"

#include <chrono>
#include <iostream>
#include <thread>
#include <nlohmann/json.hpp>

#include "agentworks/environment.hpp"
#include "agentworks/error.hpp"
#include "agentworks/random.hpp"
#include "agentworks/server_client.hpp"
#include "mcp/agent_run_tools.hpp"
#include "mcp/jsonrpc.hpp"
#include "mcp/messaging.hpp"
#include "mcp/tools.hpp"
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
    "When the messages need no answer from you, say so on purpose with no_reply instead of ending silent. To look "
    "at something again later, schedule_message_wakeup prompts a new turn of this conversation when it is due.";

json conversation_tool_list() {
  json tools = speaking_tools("Send a message into this conversation; the person or agent who wrote to you reads "
                                   "only what you send. Send as often as you need; each message arrives on its own.",
                                   "Say on purpose that these messages need no answer from you. Better than ending "
                                   "silent: the one who wrote sees that you chose not to answer.");
  for (auto& t : wakeup_tools(ToolsFor::conversation)) tools.push_back(std::move(t));
  for (auto& t : function_tools(ToolsFor::conversation)) tools.push_back(std::move(t));
  return {{"tools", tools}};
}

// What the agent should know beyond the server's message: a turn that ended cannot speak again.
Error explained(const Error& e) {
  if (e.code() != ErrorCode::unauthenticated) return e;
  return Error(e.code(), "this turn has ended, so it can no longer speak; whatever arrives next comes in a new turn "
                         "(server: " + std::string(e.what()) + ")");
}

ServerClient turn_client(const ConversationBinding& binding) {
  ServerClientOptions options;
  options.ca_file = binding.ca_file;
  return ServerClient(binding.server, binding.token, options);
}

// One send, retried once under the same submission id when its outcome is unknown (R-M2: never stored twice);
// still unknown, it says what is not known and what is safe (R-X6).
json send_once(ServerClient& client, const ConversationBinding& binding, const std::string& name, const json& args) {
  const std::string submission_id = name == "send_message" ? new_id("sub") : std::string();
  for (int attempt = 0;; ++attempt) {
    try {
      return speak(client, turn_path(binding), name, args, submission_id);
    } catch (const Error& e) {
      const bool unknown = e.code() == ErrorCode::unavailable || e.code() == ErrorCode::unreachable;
      if (!unknown || submission_id.empty()) throw;
      if (attempt == 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        continue;
      }
      throw Error(e.code(), std::string(e.what()) + ". Its outcome is unknown: the message may already be visible "
                            "in the conversation, and sending it again could double it; say so in your next message "
                            "rather than repeating it (submission_id " + submission_id + ")");
    }
  }
}

json conversation_speaking_tool(const ConversationBinding& binding, const std::string& name, const json& args) {
  try {
    ServerClient client = turn_client(binding);
    // Text only: Claude Code hands a result's structuredContent to the model in place of its text.
    const json answer = send_once(client, binding, name, args);
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

// R-W1 for a Crew's agent: the wakeups of this conversation, through the turn's secret.
json conversation_wakeup_tool(const ConversationBinding& binding, const std::string& name, const json& args) {
  try {
    ServerClient client = turn_client(binding);
    const std::string base = turn_path(binding) + "/wakeups";
    json answer;
    if (name == "schedule_message_wakeup") {
      check_arguments(args, {"after_minutes", "at", "note", "wakeup_id"});
      answer = client.post(base, args.is_object() ? args : json::object());
    } else if (name == "cancel_message_wakeup") {
      check_arguments(args, {"wakeup_id"});
      answer = client.post(base + "/" + url_encode(string_argument(args, "wakeup_id")) + "/cancel", json::object());
    } else {
      check_arguments(args, {});
      answer = client.get(base);
    }
    return text_result(describe_wakeup_answer(answer), false);
  } catch (const Error& e) {
    log_conversation_server(name + ": " + e.what());
    return error_result(explained(e));
  }
}

// R-D4 for a Crew's agent: the functions of Crews its Crew may call, as its conversation (R-K2).
json conversation_function_tool(const ConversationBinding& binding, const std::string& name, const json& args) {
  try {
    const json answer = run_function_tool(turn_client(binding), turn_path(binding), function_action(name), args);
    return text_result(describe_function_answer(answer), false);  // text only, as for send_message
  } catch (const Error& e) {
    log_conversation_server(name + ": " + e.what());
    return error_result(explained(e));
  }
}

bool is_wakeup_tool(const std::string& name) {
  return name == "schedule_message_wakeup" || name == "cancel_message_wakeup" || name == "list_message_wakeups";
}

json conversation_dispatch(const ConversationBinding& binding, const std::string& method, const json& params) {
  if (method == "initialize") return initialize_answer(params, kConversationInstructions);
  if (method == "ping") return json::object();
  if (method == "tools/list") return conversation_tool_list();
  if (method == "tools/call") {
    const std::string name =
        params.contains("name") && params["name"].is_string() ? params["name"].get<std::string>() : "";
    const json args = params.contains("arguments") ? params["arguments"] : json::object();
    if (is_speaking_tool(name)) return conversation_speaking_tool(binding, name, args);
    if (is_wakeup_tool(name)) return conversation_wakeup_tool(binding, name, args);
    if (function_action(name) != nullptr) return conversation_function_tool(binding, name, args);
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
