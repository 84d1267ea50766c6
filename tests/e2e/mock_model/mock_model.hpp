// A mock model API on 127.0.0.1 for the real Claude Code and Codex CLIs: answers the Anthropic Messages API
// (HEAD /, POST /v1/messages) and the OpenAI Responses API (POST /v1/responses) with scripted text, and records
// every request so a test can assert on exactly what the model would have seen. A main turn can also be scripted
// to call a tool the request offers (then the tool's result, in the next request, is recorded), to fail with an
// API error, or to hang; answers can be scripted per conversation (by a marker the conversation holds), so
// parallel runs are scripted and told apart. Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace agentworks::e2e {

class HttpListener;
class HttpWriter;
struct HttpRequest;

struct ModelRequest {
  int seq = 0;              // 1, 2, ... in arrival order
  std::string api;          // "anthropic", "responses" or "other"
  std::string method;
  std::string target;
  std::string body;         // raw request body
  bool main_turn = false;   // a conversation turn (it offers tools); side requests (titles, probes) offer none
  std::string conversation;  // every text of messages[] / input[] (not the system prompt, not tools), joined
  std::string last_user;     // the text of the newest user message
  std::string reply;         // what the mock answered (text, "tool call NAME ARGS", "api error N ...", "hang")
  std::chrono::steady_clock::time_point received{};  // when its whole request was read (bench/native_wake_main.cpp)
  std::chrono::steady_clock::time_point answered{};  // when the last byte of the answer was sent (unset before)
};

// A tool result the CLI sent back to the model (Responses function_call_output, Messages tool_result).
struct ToolResult {
  int seq = 0;            // the request that carried it first
  std::string call_id;    // the mock's call id (call_mock_N / toolu_mock_N)
  std::string tool;       // the name the mock called (e.g. agent_message_ack, mcp__plugin_..._agent_message_ack)
  std::string arguments;  // the arguments the mock sent (JSON text)
  std::string output;     // every text of the result, joined
};

// A tool call scripted for a main turn: the tool whose name ends with `tool_suffix` among the request's tools
// (top-level functions and the functions inside namespace tools), with the arguments `arguments` makes from
// that request (a JSON object as text).
struct ScriptedToolCall {
  std::string tool_suffix;
  std::function<std::string(const ModelRequest&)> arguments;
};

// One scripted answer of a main turn.
struct MockAnswer {
  enum class Kind { text, tool_call, api_error, hang };
  Kind kind = Kind::text;
  std::string text;  // the text answer, or the API error's message
  std::optional<ScriptedToolCall> tool_call;
  bool sticky = false;     // stays at the front: every later main turn of its queue gets it too
  int http_status = 0;     // api_error: the HTTP status (4xx/5xx)
  std::string error_type;  // api_error: e.g. invalid_request_error

  static MockAnswer reply(std::string text);
  static MockAnswer tool(ScriptedToolCall call);
  // The API's own error shape with `status`: Anthropic {"type":"error","error":{"type","message"}}, Responses
  // {"error":{"type","message","code"}}. Sticky: the API keeps failing, so a CLI's retries get it again (Claude
  // Code 2.1.332 retries a 400 once, then ends with a result is_error:true and exits 1; Codex with
  // request_max_retries = 0 prints `error` and `turn.failed`).
  static MockAnswer api_error(int status, std::string type, std::string message);
  // Reads the request and answers nothing until release_hangs() (then `then`, or the default text when empty)
  // or the mock is destroyed (then the connection is cut): a model that stalls.
  static MockAnswer hang(std::string then = "");
};

class MockModel {
 public:
  MockModel();  // listens on 127.0.0.1:0 at once
  MockModel(const MockModel&) = delete;
  MockModel& operator=(const MockModel&) = delete;
  ~MockModel();

  int port() const;
  std::string anthropic_base_url() const;  // http://127.0.0.1:PORT (Claude appends /v1/messages)
  std::string openai_base_url() const;     // http://127.0.0.1:PORT/v1 (Codex appends /responses)

  // Main turns answer with queued replies first, then the default ("OK").
  void set_default_reply(const std::string& text);
  void queue_reply(const std::string& text);
  // The next main turn (after the queued replies before it) answers with this tool call instead of text. The
  // CLI runs the tool and sends its result in a new request, which takes the next queued answer (or the
  // default text). A request that offers no such tool is answered with a text saying so.
  void queue_tool_call(ScriptedToolCall call);
  void queue_answer(MockAnswer answer);
  // Main turns whose conversation contains `marker` take these answers in order, then the default text; they
  // never take the shared queue above. Several markers script parallel runs, one each.
  void script_conversation(const std::string& marker, std::vector<MockAnswer> answers);
  // Lets every hanging request (MockAnswer::hang) answer with the default text.
  void release_hangs();
  // The first main turn whose newest user message contains `marker` streams its first event, then waits
  // `delay` before the rest (one slow turn, e.g. to send messages while the model "works").
  void slow_turn_once(const std::string& marker, std::chrono::milliseconds delay);
  // Called for every main turn before it is answered (e.g. to send a message during each turn).
  void on_main_turn(std::function<void(const ModelRequest&)> callback);

  std::vector<ModelRequest> requests() const;
  std::vector<ModelRequest> main_turns() const;
  // Waits for a recorded request matching `pred` (-> it) or the timeout (-> nullopt).
  std::optional<ModelRequest> wait_for(const std::function<bool(const ModelRequest&)>& pred,
                                       std::chrono::milliseconds timeout = std::chrono::seconds(60)) const;
  // Shortcut: a main turn whose newest user message contains `text`.
  std::optional<ModelRequest> wait_for_user_text(const std::string& text,
                                                 std::chrono::milliseconds timeout = std::chrono::seconds(60)) const;
  // True when any request's conversation contains `text`.
  bool any_conversation_contains(const std::string& text) const;
  // The results of the mock's tool calls, in arrival order (each once).
  std::vector<ToolResult> tool_results() const;
  // Waits for the result of a call to a tool whose name ends with `tool_suffix` (the first one not yet among
  // `skip` earlier results) or the timeout.
  std::optional<ToolResult> wait_for_tool_result(const std::string& tool_suffix, std::size_t skip = 0,
                                                 std::chrono::milliseconds timeout = std::chrono::seconds(60)) const;
  // Main turns whose conversation contains `marker`.
  std::vector<ModelRequest> main_turns_with(const std::string& marker) const;
  // "" when every main turn that carries one of `markers` carries exactly that one and every marker has at least
  // one main turn (separate conversations); otherwise what is wrong.
  std::string conversations_apart(const std::vector<std::string>& markers) const;
  // Every recorded request, one line each, for failure messages.
  std::string describe() const;

 private:
  using Answer = MockAnswer;
  struct PlannedCall {  // a tool call resolved against one request
    std::string name, tool_namespace, arguments, call_id;
  };
  void handle(const HttpRequest& req, HttpWriter& out);
  Answer next_answer(const ModelRequest& r);  // under mutex_
  // Blocks a hanging answer until released (-> true) or the mock stops (-> false).
  bool wait_released(std::uint64_t generation);
  void mark_answered(int seq);
  // Adds the results in `body` of calls the mock made and has not recorded yet. Under mutex_.
  void record_tool_results(const std::string& api, const std::string& body, int seq);

  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::vector<ModelRequest> requests_;
  std::deque<Answer> queued_;
  std::vector<std::pair<std::string, std::deque<Answer>>> scripted_;  // marker -> its conversation's answers
  std::uint64_t release_generation_ = 0;
  bool stopping_ = false;
  std::vector<PlannedCall> calls_;
  std::vector<ToolResult> tool_results_;
  std::string default_reply_ = "OK";
  std::string slow_marker_;
  std::chrono::milliseconds slow_delay_{0};
  std::function<void(const ModelRequest&)> on_main_turn_;
  std::unique_ptr<HttpListener> listener_;  // last: destroyed (threads joined) before the state above
};

}  // namespace agentworks::e2e
