#include "mcp/full_server.hpp"

#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "mcp/elicitation.hpp"
#include "mcp/jsonrpc.hpp"
#include "mcp/protocol_version.hpp"

namespace agentworks::cli::mcp {
using nlohmann::json;
namespace {

void log_full_line(const std::string& text) { std::cerr << "agentworks mcp --full: " << text << std::endl; }

json dispatch(const std::string& method, const json& params, const LoginSource& login, Elicitations& elicitations) {
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
    json result = call_full_tool(name, params.contains("arguments") ? params["arguments"] : json(), login);
    // A followed call that waits for an answer: ask the person through their client, if it can show a form.
    if (name == "functions") elicitations.offer(result);
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
      return dispatch(method, params, login, elicitations);
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
