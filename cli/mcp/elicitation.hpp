// Questions of a followed call as MCP elicitations (`mcp serve --full`, docs/mcp.md): when the client advertised
// the `elicitation` capability and a `functions` result shows the call waiting_input, each pending input not asked
// before goes to the client as an `elicitation/create` request; an accepted one is posted as the reply, a declined
// or cancelled one stays pending (answer it with functions_reply). Nothing waits for the client: its response arrives
// through the server's one read loop like any other message.
#pragma once

#include <map>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "mcp/full_tools.hpp"
#include "mcp/jsonrpc.hpp"

namespace agentworks::cli::mcp {

class Elicitations {
 public:
  Elicitations(LineWriter& writer, LoginSource login) : writer_(writer), login_(std::move(login)) {}

  // From the client's initialize params: does it take form elicitations?
  void set_client_capabilities(const nlohmann::json& initialize_params);
  // After a `functions` tool result: asks the client each new pending input of a waiting call.
  void offer(const nlohmann::json& tool_result);
  // The client's response to one of our requests; false when it is not an elicitation of ours.
  bool on_response(const nlohmann::json& response);

 private:
  struct Asked {
    std::string call_id;
    std::string request_id;
    bool whole_content = false;  // the question's own schema was requested: the content is the JSON answer
  };

  LineWriter& writer_;
  LoginSource login_;
  bool enabled_ = false;
  long long next_id_ = 0;
  std::set<std::string> asked_requests_;  // request_ids already offered, whatever the client did with them
  std::map<std::string, Asked> in_flight_;  // our elicitation id -> the question
};

// The requestedSchema for a question: its own schema when it is an object of primitive properties (what an
// elicitation form can show), else a single string field `answer`. Sets `own` when it is the question's schema.
nlohmann::json requested_schema(const nlohmann::json& question_schema, bool& own);

// The reply text of an accepted form: its `answer` field, or the whole content as JSON when the question's own
// schema was asked (`whole_content`).
std::string elicited_answer(const nlohmann::json& content, bool whole_content);

}  // namespace agentworks::cli::mcp
