#include "mcp/full_server.hpp"

#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "mcp/elicitation.hpp"
#include "mcp/full_tasks.hpp"
#include "mcp/jsonrpc.hpp"
#include "mcp/protocol_version.hpp"

namespace agentworks::cli::mcp {
using nlohmann::json;
namespace {

void log_full_line(const std::string& text) { std::cerr << "agentworks mcp --full: " << text << std::endl; }

json dispatch(const std::string& method, const json& params, const LoginSource& login, Elicitations& elicitations) {
  if (method == "server/discover") return discover_answer();
  if (method == "tasks/get") return task_get(params, login);
  if (method == "tasks/update") return task_update(params, login);
  if (method == "tasks/cancel") return task_cancel(params, login);
  if (method == "initialize") {
    elicitations.set_client_capabilities(params);
    const auto requested = params.contains("protocolVersion") && params["protocolVersion"].is_string()
                               ? params["protocolVersion"].get<std::string>()
                               : std::string();
    return {{"protocolVersion", negotiate_version(requested)},
            {"capabilities", {{"tools", json::object()}}},
            {"serverInfo", {{"name", "agentworks-full"}, {"version", "0.1.0"}}},
            {"instructions", full_help_context()}};
  }
  if (method == "ping") return json::object();
  if (method == "tools/list") return full_tool_list();
  if (method == "tools/call") {
    if (!params.contains("name") || !params["name"].is_string()) {
      throw RpcError(rpc_invalid_params, "tools/call needs 'name' (a string)");
    }
    const std::string name = params["name"].get<std::string>();
    const json arguments = params.contains("arguments") ? params["arguments"] : json();
    json result = call_full_tool(name, arguments, login);
    // R-D5: a call the client can take as a task is answered as one (a refusal such as busy stays a tool error).
    if (name == "functions_call" && client_takes_tasks(params) && !result.value("isError", false))
      return task_created(result["structuredContent"]);
    // A followed call that waits for an answer: ask the person through their client, if it can show a form. The
    // stateless revision has no requests from the server: its questions travel as the task's input_required.
    if (name.rfind("functions_", 0) == 0 && !stateless_request(params)) elicitations.offer(result);
    return result;
  }
  throw RpcError(rpc_method_not_found, "unknown method '" + method + "'");
}

}  // namespace

void serve_full(std::istream& in, std::ostream& out, const LoginSource& login) {
  try {
    LineWriter writer(out);
    Elicitations elicitations(writer, login);
    RpcHandlers handlers;
    handlers.dispatch = [&login, &elicitations](const std::string& method, const json& params) {
      json answer = dispatch(method, params, login, elicitations);
      // The stateless revision marks every complete answer; a list may be kept by nobody (ttl 0, private).
      if (stateless_request(params) && answer.is_object() && !answer.contains("resultType")) {
        answer["resultType"] = "complete";
        if (method == "tools/list") {
          answer["ttlMs"] = 0;
          answer["cacheScope"] = "private";
        }
      }
      return answer;
    };
    handlers.log = log_full_line;
    handlers.response = [&elicitations](const json& response) {
      if (!elicitations.on_response(response)) log_full_line("ignored a response to an unknown request");
    };
    std::string line;
    while (std::getline(in, line)) handle_rpc_line(line, writer, handlers);
  } catch (const std::exception& e) {
    log_full_line(std::string("stopped: ") + e.what());
  }
}

}  // namespace agentworks::cli::mcp
