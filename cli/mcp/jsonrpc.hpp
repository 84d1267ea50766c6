// JSON-RPC 2.0 over stdio for the MCP server (docs/mcp.md): one compact JSON message per line, no framing.
// Output is serialized through one writer so a channel notification never interleaves with an answer; stdout
// carries nothing else.
#pragma once

#include <functional>
#include <mutex>
#include <ostream>
#include <stdexcept>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace agentworks::cli::mcp {

enum RpcCode : int {
  rpc_parse_error = -32700,
  rpc_invalid_request = -32600,
  rpc_method_not_found = -32601,
  rpc_invalid_params = -32602,
  rpc_internal_error = -32603,
};

// A protocol-level failure: answered as a JSON-RPC error, not as a tool result.
class RpcError : public std::runtime_error {
 public:
  RpcError(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
  int code() const noexcept { return code_; }

 private:
  int code_;
};

class LineWriter {
 public:
  explicit LineWriter(std::ostream& out) : out_(out) {}
  // Writes `message` as one line and flushes. Safe from several threads.
  void write(const nlohmann::json& message);

 private:
  std::ostream& out_;
  std::mutex mutex_;
};

nlohmann::json rpc_result(const nlohmann::json& id, const nlohmann::json& result);
nlohmann::json rpc_error(const nlohmann::json& id, int code, const std::string& message);
nlohmann::json rpc_notification(const std::string& method, const nlohmann::json& params);

nlohmann::json rpc_request(const nlohmann::json& id, const std::string& method, const nlohmann::json& params);

// What a server does with the client's messages: `seen` is told the method of every well-formed message
// (requests and notifications, before it is answered); `dispatch` answers a request (throw RpcError for a
// JSON-RPC error); `log` records an unexpected exception. Optional: `answer_later` may take a request before
// dispatch and answer it itself through the writer later (true: taken; e.g. a tool call that waits on another
// thread); `response` gets the client's response (the whole message) to a request this server sent.
struct RpcHandlers {
  std::function<void(const std::string& method)> seen;
  std::function<nlohmann::json(const std::string& method, const nlohmann::json& params)> dispatch;
  std::function<void(const std::string& text)> log;
  std::function<bool(const nlohmann::json& id, const std::string& method, const nlohmann::json& params)> answer_later;
  std::function<void(const nlohmann::json& response)> response;
};

// One line from the client: a parse error or bad request is answered here, a notification (no id) gets no answer,
// a request gets dispatch's result or error, a response goes to `response`. Blank lines are ignored.
void handle_rpc_line(const std::string& line, LineWriter& writer, const RpcHandlers& handlers);

}  // namespace agentworks::cli::mcp
