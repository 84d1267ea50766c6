#include "mcp/jsonrpc.hpp"

#include <nlohmann/json.hpp>

namespace agentworks::cli::mcp {

using nlohmann::json;

void LineWriter::write(const json& message) {
  // Invalid UTF-8 from anywhere is replaced, never a throw that would kill the server mid-session.
  const std::string line = message.dump(-1, ' ', false, json::error_handler_t::replace);
  const std::lock_guard lock(mutex_);
  out_ << line << '\n';
  out_.flush();
}

json rpc_result(const json& id, const json& result) { return {{"jsonrpc", "2.0"}, {"id", id}, {"result", result}}; }

json rpc_error(const json& id, int code, const std::string& message) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

json rpc_notification(const std::string& method, const json& params) {
  return {{"jsonrpc", "2.0"}, {"method", method}, {"params", params}};
}

json rpc_request(const json& id, const std::string& method, const json& params) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}};
}

void handle_rpc_line(const std::string& line, LineWriter& writer, const RpcHandlers& handlers) {
  if (line.find_first_not_of(" \t\r") == std::string::npos) return;
  const json msg = json::parse(line, nullptr, false);
  if (msg.is_discarded()) {
    writer.write(rpc_error(nullptr, rpc_parse_error, "not valid JSON"));
    return;
  }
  if (!msg.is_object()) {
    writer.write(rpc_error(nullptr, rpc_invalid_request, "a JSON-RPC message must be an object (no batches)"));
    return;
  }
  const bool has_id = msg.contains("id");
  if (!msg.contains("method")) {  // a response to a request of ours
    if (has_id && handlers.response) handlers.response(msg);
    return;
  }
  const json& method_value = msg.at("method");
  const json id = has_id ? msg["id"] : json();
  if (has_id && !id.is_string() && !id.is_number_integer()) {
    writer.write(rpc_error(nullptr, rpc_invalid_request, "'id' must be a string or an integer"));
    return;
  }
  if (!method_value.is_string()) {
    if (has_id) writer.write(rpc_error(id, rpc_invalid_request, "'method' must be a string"));
    return;
  }
  const std::string method = method_value.get<std::string>();
  if (handlers.seen) handlers.seen(method);
  if (!has_id) return;  // notifications (initialized, cancelled, ...) need no answer
  const json params = msg.contains("params") && msg["params"].is_object() ? msg["params"] : json::object();
  try {
    if (handlers.answer_later && handlers.answer_later(id, method, params)) return;
    writer.write(rpc_result(id, handlers.dispatch(method, params)));
  } catch (const RpcError& e) {
    writer.write(rpc_error(id, e.code(), e.what()));
  } catch (const std::exception& e) {
    if (handlers.log) handlers.log(std::string("internal error in ") + method + ": " + e.what());
    writer.write(rpc_error(id, rpc_internal_error, std::string("internal error: ") + e.what()));
  }
}

}  // namespace agentworks::cli::mcp
