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

}  // namespace agentworks::cli::mcp
