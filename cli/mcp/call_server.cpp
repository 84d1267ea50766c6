#include "mcp/call_server.hpp"

#include <atomic>
#include <map>
#include <set>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "agentworks/error.hpp"
#include "agentworks/server_client.hpp"
#include "agentworks/validation.hpp"
#include "functions/routes.hpp"
#include "functions/target.hpp"
#include "mcp/agent_run_tools.hpp"
#include "mcp/jsonrpc.hpp"
#include "mcp/messaging.hpp"
#include "mcp/tools.hpp"

namespace agentworks::cli::mcp {
using nlohmann::json;
namespace {

constexpr const char* kTool = "request_input";

void log_call_server(const std::string& text) { std::cerr << "agentworks mcp --call: " << text << std::endl; }

const char* const kDescription =
    "Ask the caller of this function (the person or agent who called it) a question and wait for the answer. Use "
    "this tool for EVERY question to the caller instead of asking in chat: nobody reads your chat while you run, so "
    "a question in your text is never answered. It blocks until the caller answers (minutes, possibly longer) and "
    "returns the answer as its result. With `schema` (a JSON Schema object) the answer is JSON text valid against "
    "it. Ask only what you cannot find out yourself.";

// R-X7: an explicit function's voice. Its text is commentary; these are what the caller receives.
json explicit_tools() {
  return speaking_tools("Send a message to the caller of this function. The caller reads only what you send; the last "
                        "message you send is the call's answer.",
                        "Say on purpose that this task needs no answer from you: the call completes with no answer. "
                        "Better than ending silent.");
}

json tool_list(bool explicit_communication) {
  json tools = json::array({{{"name", kTool},
                         {"description", kDescription},
                         {"inputSchema",
                          {{"type", "object"},
                           {"properties",
                            {{"question", {{"type", "string"}, {"description", "The question, complete and self-contained"}}},
                             {"schema",
                              {{"type", "object"},
                               {"description", "Optional JSON Schema (draft-07) the answer must satisfy, e.g. "
                                               "{\"type\":\"object\",\"properties\":{\"branch\":{\"type\":\"string\"}}}"}}}}},
                           {"required", json::array({"question"})},
                           {"additionalProperties", false}}}}});
  for (auto& t : function_tools(ToolsFor::execution)) tools.push_back(std::move(t));  // R-D4
  if (explicit_communication)
    for (auto& t : explicit_tools()) tools.push_back(std::move(t));
  return {{"tools", tools}};
}

// What went wrong, said so the agent knows whether to go on without the answer.
std::string failure_text(const functions::ExecutionBinding& binding, const Error& e) {
  switch (e.code()) {
    case ErrorCode::unauthenticated:
    case ErrorCode::not_found:
      return "call " + binding.call_id +
             " is no longer open (it finished, failed or was interrupted), so nobody can answer this question; "
             "continue without the answer. Server: " + e.what();
    case ErrorCode::unreachable:
      return "the agentworks server (" + binding.server + ") cannot be reached, so the question cannot be asked or "
             "answered: " + e.what();
    case ErrorCode::invalid_input:
    case ErrorCode::bad_request:
      return "the question was refused (" + std::string(code_name(e.code())) + "): " + e.what() +
             "; fix the arguments and ask again";
    default:
      return "request_input failed (" + std::string(code_name(e.code())) + "): " + e.what();
  }
}

// Checks the arguments; the question and schema, or the reason they are unusable.
std::string read_arguments(const json& args, std::optional<json>& schema) {
  if (!args.is_object()) throw Error(ErrorCode::bad_request, "the arguments must be an object {question, schema?}");
  for (const auto& [key, value] : args.items())
    if (key != "question" && key != "schema")
      throw Error(ErrorCode::bad_request, "unknown argument '" + key + "' (request_input takes question, schema)");
  if (!args.contains("question") || !args["question"].is_string() || blank_text(args["question"].get<std::string>()))
    throw Error(ErrorCode::bad_request, "'question' (a non-empty string) is required");
  if (args.contains("schema") && !args["schema"].is_null()) {
    if (!args["schema"].is_object()) throw Error(ErrorCode::bad_request, "'schema' must be a JSON Schema object");
    schema = args["schema"];
  }
  return args["question"].get<std::string>();
}

json function_tool(const functions::ExecutionBinding& binding, const std::string& name, const json& args) {
  try {
    const json answer =
        run_function_tool(functions::client_with_wait(binding.server, binding.token, 0, binding.ca_file),
                          "/v1/calls/" + url_encode(binding.call_id), function_action(name), args);
    json result = text_result(describe_function_answer(answer), false);
    result["structuredContent"] = answer;
    return result;
  } catch (const Error& e) {
    log_call_server(name + ": " + e.what());
    return error_result(e);
  }
}

json explicit_tool(const functions::ExecutionBinding& binding, const std::string& name, const json& args) {
  try {
    auto client = functions::client_with_wait(binding.server, binding.token, 0, binding.ca_file);
    speak(client, "/v1/calls/" + url_encode(binding.call_id), name, args);
    if (name == "send_message")
      return text_result("Sent to the caller. If you send another, the last one is the answer.", false);
    return text_result("Recorded: no answer. The call completes without one when your turn ends.", false);
  } catch (const Error& e) {
    log_call_server(name + ": " + e.what());
    return error_result(e);
  }
}

json ask(const functions::ExecutionBinding& binding, const json& args) {
  try {
    std::optional<json> schema;
    const std::string question = read_arguments(args, schema);
    log_call_server("asking the caller of " + binding.call_id);
    const auto answered = functions::ask_and_wait(binding, question, schema);
    log_call_server("answered " + answered.request_id);
    return text_result(answered.answer, false);
  } catch (const Error& e) {
    log_call_server(std::string("request_input: ") + e.what());
    return text_result(failure_text(binding, e), true);
  } catch (const std::exception& e) {
    log_call_server(std::string("request_input: ") + e.what());
    return text_result(std::string("request_input failed: ") + e.what(), true);
  }
}

json dispatch(const functions::ExecutionBinding& binding, bool explicit_communication, const std::string& method,
             const json& params) {
  if (method == "initialize") {
    return initialize_answer(params, std::string("Questions for the caller of this function go through the ") + kTool +
                                         " tool, never into chat.");
  }
  if (method == "ping") return json::object();
  if (method == "tools/list") return tool_list(explicit_communication);
  if (method == "tools/call") {
    const std::string name = params.contains("name") && params["name"].is_string() ? params["name"].get<std::string>() : "";
    if (function_action(name) != nullptr)
      return function_tool(binding, name, params.contains("arguments") ? params["arguments"] : json::object());
    if (explicit_communication && is_speaking_tool(name))
      return explicit_tool(binding, name, params.contains("arguments") ? params["arguments"] : json::object());
    throw RpcError(rpc_invalid_params, "unknown tool '" + name + "'; tools/list names the tools");
  }
  throw RpcError(rpc_method_not_found, "unknown method '" + method + "'");
}

}  // namespace

void serve_call(std::istream& in, std::ostream& out, const functions::ExecutionBinding& binding,
                bool explicit_communication) {
  try {
    ensure_curl_initialized();  // before the first waiting thread
    LineWriter writer(out);
    std::atomic<int> waiting{0};
    RpcHandlers handlers;
    handlers.dispatch = [&binding, explicit_communication](const std::string& method, const json& params) {
      return dispatch(binding, explicit_communication, method, params);
    };
    handlers.log = log_call_server;
    handlers.answer_later = [&](const json& id, const std::string& method, const json& params) {
      if (method != "tools/call" || !params.contains("name") || params["name"] != kTool) return false;
      const json args = params.contains("arguments") ? params["arguments"] : json::object();
      ++waiting;
      std::thread([&writer, &waiting, &binding, id, args] {
        writer.write(rpc_result(id, ask(binding, args)));
        --waiting;
      }).detach();
      return true;
    };
    std::string line;
    while (std::getline(in, line)) handle_rpc_line(line, writer, handlers);
    if (waiting.load() > 0) {
      // The client is gone; its questions stay pending on the call, and nobody would read an answer.
      log_call_server("stdin closed while a question waits; exiting");
      std::cerr.flush();
      std::_Exit(0);
    }
  } catch (const std::exception& e) {
    log_call_server(std::string("stopped: ") + e.what());
  }
}

}  // namespace agentworks::cli::mcp
