#include "mcp/full_server.hpp"

#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "mcp/jsonrpc.hpp"
#include "mcp/protocol_version.hpp"

namespace agentworks::cli::mcp {
using nlohmann::json;
namespace {

void log_line(const std::string& text) { std::cerr << "agentworks mcp --full: " << text << std::endl; }

json dispatch(const std::string& method, const json& params, const LoginSource& login) {
  if (method == "initialize") {
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
    return call_full_tool(params["name"].get<std::string>(),
                          params.contains("arguments") ? params["arguments"] : json(), login);
  }
  throw RpcError(rpc_method_not_found, "unknown method '" + method + "'");
}

}  // namespace

void serve_full(std::istream& in, std::ostream& out, const LoginSource& login) {
  try {
    LineWriter writer(out);
    const RpcHandlers handlers{
        nullptr, [&login](const std::string& method, const json& params) { return dispatch(method, params, login); },
        log_line};
    std::string line;
    while (std::getline(in, line)) handle_rpc_line(line, writer, handlers);
  } catch (const std::exception& e) {
    log_line(std::string("stopped: ") + e.what());
  }
}

}  // namespace agentworks::cli::mcp
