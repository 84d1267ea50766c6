#include "mock_model/mock_model.hpp"

#include <nlohmann/json.hpp>
#include <regex>
#include <thread>

#include "mock_model/http_listener.hpp"
#include "mock_model/model_replies.hpp"

namespace agentworks::e2e {
namespace {

using nlohmann::json;

// Every string inside `v` (content blocks, tool results, nested parts), joined with newlines.
void collect_text(const json& v, std::string& out) {
  if (v.is_string()) {
    if (!out.empty()) out += '\n';
    out += v.get<std::string>();
  } else if (v.is_array()) {
    for (const auto& e : v) collect_text(e, out);
  } else if (v.is_object()) {
    for (const auto& [k, e] : v.items()) {
      if (k == "text" || k == "content" || k == "input_text" || k == "output" || k == "input") collect_text(e, out);
    }
  }
}

std::string text_of(const json& v) {
  std::string out;
  collect_text(v, out);
  return out;
}

void classify(ModelRequest& r) {
  const auto body = json::parse(r.body, nullptr, false);
  if (body.is_discarded() || !body.is_object()) return;
  const bool has_tools = body.contains("tools") && body["tools"].is_array() && !body["tools"].empty();
  r.main_turn = has_tools;
  const json items = r.api == "anthropic" ? body.value("messages", json::array()) : body.value("input", json::array());
  if (items.is_string()) {  // Responses API allows a bare string input
    r.conversation = r.last_user = items.get<std::string>();
    return;
  }
  for (const auto& item : items) {
    const std::string t = text_of(item.value("content", json()));
    const std::string o = item.contains("output") ? text_of(item["output"]) : std::string();
    if (!r.conversation.empty()) r.conversation += '\n';
    r.conversation += t + o;
    if (item.value("role", "") == "user") r.last_user = t;
  }
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

struct FoundTool {
  std::string name;
  std::string tool_namespace;
};

// The offered tool whose name ends with `suffix`. Codex 0.171.0 offers MCP tools inside a namespace tool
// ({"type":"namespace","name":"mcp__SERVER","tools":[{"type":"function","name":"TOOL"}]}); Claude Code
// 2.1.332 may list an MCP tool only by name among its deferred tools (in the text), not in tools[].
std::optional<FoundTool> find_tool(const json& body, const std::string& suffix) {
  for (const auto& t : body.value("tools", json::array())) {
    if (!t.is_object()) continue;
    const std::string name = t.value("name", "");
    if (t.value("type", "") == "namespace") {
      for (const auto& child : t.value("tools", json::array())) {
        if (child.is_object() && ends_with(child.value("name", ""), suffix)) return FoundTool{child.value("name", ""), name};
      }
    } else if (!name.empty() && ends_with(name, suffix)) {
      return FoundTool{name, ""};
    }
  }
  static const std::regex mcp_name(R"(mcp__[A-Za-z0-9_-]+)");
  const std::string text = body.dump();
  for (std::sregex_iterator it(text.begin(), text.end(), mcp_name), end; it != end; ++it) {
    if (ends_with(it->str(), suffix)) return FoundTool{it->str(), ""};
  }
  return std::nullopt;
}

}  // namespace

MockModel::MockModel() {
  listener_ = std::make_unique<HttpListener>([this](const HttpRequest& req, HttpWriter& out) { handle(req, out); });
}

MockModel::~MockModel() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;  // hanging answers give up, so the listener can join their threads
  }
  changed_.notify_all();
  listener_.reset();
}

MockAnswer MockAnswer::reply(std::string text) {
  MockAnswer a;
  a.text = std::move(text);
  return a;
}
MockAnswer MockAnswer::tool(ScriptedToolCall call) {
  MockAnswer a;
  a.kind = Kind::tool_call;
  a.tool_call = std::move(call);
  return a;
}
MockAnswer MockAnswer::api_error(int status, std::string type, std::string message) {
  MockAnswer a;
  a.kind = Kind::api_error;
  a.sticky = true;
  a.http_status = status;
  a.error_type = std::move(type);
  a.text = std::move(message);
  return a;
}
MockAnswer MockAnswer::hang(std::string then) {
  MockAnswer a;
  a.kind = Kind::hang;
  a.text = std::move(then);
  return a;
}

int MockModel::port() const { return listener_->port(); }
std::string MockModel::anthropic_base_url() const { return "http://127.0.0.1:" + std::to_string(port()); }
std::string MockModel::openai_base_url() const { return anthropic_base_url() + "/v1"; }

void MockModel::set_default_reply(const std::string& text) {
  std::lock_guard lock(mutex_);
  default_reply_ = text;
}
void MockModel::queue_reply(const std::string& text) { queue_answer(MockAnswer::reply(text)); }
void MockModel::queue_tool_call(ScriptedToolCall call) { queue_answer(MockAnswer::tool(std::move(call))); }
void MockModel::queue_answer(MockAnswer answer) {
  std::lock_guard lock(mutex_);
  queued_.push_back(std::move(answer));
}
void MockModel::script_conversation(const std::string& marker, std::vector<MockAnswer> answers) {
  std::lock_guard lock(mutex_);
  scripted_.emplace_back(marker, std::deque<Answer>(answers.begin(), answers.end()));
}
void MockModel::release_hangs() {
  {
    std::lock_guard lock(mutex_);
    ++release_generation_;
  }
  changed_.notify_all();
}
void MockModel::slow_turn_once(const std::string& marker, std::chrono::milliseconds delay) {
  std::lock_guard lock(mutex_);
  slow_marker_ = marker;
  slow_delay_ = delay;
}
void MockModel::on_main_turn(std::function<void(const ModelRequest&)> callback) {
  std::lock_guard lock(mutex_);
  on_main_turn_ = std::move(callback);
}

MockModel::Answer MockModel::next_answer(const ModelRequest& r) {
  for (auto& [marker, answers] : scripted_) {
    if (r.conversation.find(marker) == std::string::npos) continue;
    if (answers.empty()) return MockAnswer::reply(default_reply_);
    Answer a = answers.front();
    if (!a.sticky) answers.pop_front();
    return a;
  }
  if (queued_.empty()) return MockAnswer::reply(default_reply_);
  Answer a = queued_.front();
  if (!a.sticky) queued_.pop_front();
  return a;
}

void MockModel::record_tool_results(const std::string& api, const std::string& body_text, int seq) {
  if (calls_.empty()) return;
  const auto body = json::parse(body_text, nullptr, false);
  if (!body.is_object()) return;
  auto add = [&](const std::string& call_id, const json& output) {
    for (const auto& known : tool_results_) {
      if (known.call_id == call_id) return;
    }
    for (const auto& call : calls_) {
      if (call.call_id == call_id) tool_results_.push_back(ToolResult{seq, call_id, call.name, call.arguments, text_of(output)});
    }
  };
  if (api == "responses") {
    for (const auto& item : body.value("input", json::array())) {
      if (item.is_object() && item.value("type", "") == "function_call_output") {
        add(item.value("call_id", ""), item.value("output", json()));
      }
    }
    return;
  }
  for (const auto& message : body.value("messages", json::array())) {
    if (!message.is_object() || !message.contains("content") || !message["content"].is_array()) continue;
    for (const auto& block : message["content"]) {
      if (block.is_object() && block.value("type", "") == "tool_result") {
        add(block.value("tool_use_id", ""), block.value("content", json()));
      }
    }
  }
}

void MockModel::handle(const HttpRequest& req, HttpWriter& out) {
  ModelRequest r;
  r.received = std::chrono::steady_clock::now();
  r.method = req.method;
  r.target = req.target;
  r.body = req.body;
  const std::string path = req.target.substr(0, req.target.find('?'));
  r.api = path == "/v1/messages" ? "anthropic" : path == "/v1/responses" ? "responses" : "other";
  classify(r);
  std::chrono::milliseconds delay{0};
  std::function<void(const ModelRequest&)> callback;
  Answer answer;
  std::uint64_t generation = 0;
  {
    std::lock_guard lock(mutex_);
    r.seq = static_cast<int>(requests_.size()) + 1;
    generation = release_generation_;
    record_tool_results(r.api, r.body, r.seq);
    if (r.main_turn) {
      answer = next_answer(r);
      r.reply = answer.kind == Answer::Kind::api_error
                    ? "api error " + std::to_string(answer.http_status) + " " + answer.error_type + ": " + answer.text
                : answer.kind == Answer::Kind::hang ? std::string("hang")
                                                    : answer.text;
      callback = on_main_turn_;
      if (!slow_marker_.empty() && r.last_user.find(slow_marker_) != std::string::npos) {
        delay = slow_delay_;
        slow_marker_.clear();
      }
    } else {
      r.reply = "Mock title";
    }
    requests_.push_back(r);
  }
  changed_.notify_all();
  if (callback) callback(r);

  // A scripted tool call: resolved against this request (outside the lock: `arguments` is the test's code).
  std::optional<PlannedCall> planned;
  if (answer.tool_call) {
    const auto body = json::parse(req.body, nullptr, false);
    const auto tool = body.is_object() ? find_tool(body, answer.tool_call->tool_suffix) : std::nullopt;
    std::lock_guard lock(mutex_);
    if (tool) {
      const std::string arguments = answer.tool_call->arguments ? answer.tool_call->arguments(r) : "{}";
      planned = PlannedCall{tool->name, tool->tool_namespace, arguments,
                            (r.api == "anthropic" ? "toolu_mock_" : "call_mock_") + std::to_string(r.seq)};
      calls_.push_back(*planned);
      r.reply = "tool call " + (tool->tool_namespace.empty() ? "" : tool->tool_namespace + "/") + tool->name + " " +
                arguments;
    } else {
      r.reply = "mock: the request offers no tool whose name ends with " + answer.tool_call->tool_suffix;
    }
    requests_[static_cast<std::size_t>(r.seq - 1)].reply = r.reply;
  }

  if (r.api == "other") {  // HEAD / (Claude's connectivity probe) and anything else: an empty 200
    out.head(200, "application/json", req.method == "HEAD" ? 0 : 2);
    if (req.method != "HEAD") out.write("{}");
    mark_answered(r.seq);
    return;
  }
  if (answer.kind == Answer::Kind::hang) {
    if (!wait_released(generation)) return;  // the mock stops: the connection is cut
    std::lock_guard lock(mutex_);
    r.reply = answer.text.empty() ? default_reply_ : answer.text;
  }
  if (answer.kind == Answer::Kind::api_error) {
    const std::string error = api_error_body(r.api, answer.error_type, answer.text);
    out.head(answer.http_status, "application/json", static_cast<long>(error.size()));
    out.write(error);
    mark_answered(r.seq);
    return;
  }
  const std::string id = (r.api == "anthropic" ? "msg_mock_" : "resp_mock_") + std::to_string(r.seq);
  const auto body = json::parse(req.body, nullptr, false);
  const bool stream = body.is_object() && body.value("stream", false);
  if (!stream) {
    const std::string msg = anthropic_text_message(r.reply, id);
    out.head(200, "application/json", static_cast<long>(msg.size()));
    out.write(msg);
    mark_answered(r.seq);
    return;
  }
  std::vector<std::string> events;
  if (planned && r.api == "anthropic") {
    events = anthropic_tool_use_stream(planned->name, planned->arguments, planned->call_id, id);
  } else if (planned) {
    events = responses_function_call_stream(planned->name, planned->tool_namespace, planned->arguments,
                                            planned->call_id, id);
  } else {
    events = r.api == "anthropic" ? anthropic_text_stream(r.reply, id) : responses_text_stream(r.reply, id);
  }
  out.head(200, "text/event-stream");
  for (std::size_t i = 0; i < events.size() && out.ok(); ++i) {
    out.write(events[i]);
    if (i == 0 && delay.count() > 0) std::this_thread::sleep_for(delay);
  }
  mark_answered(r.seq);
}

bool MockModel::wait_released(std::uint64_t generation) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return stopping_ || release_generation_ > generation; });
  return !stopping_;
}

void MockModel::mark_answered(int seq) {
  {
    std::lock_guard lock(mutex_);
    requests_[static_cast<std::size_t>(seq - 1)].answered = std::chrono::steady_clock::now();
  }
  changed_.notify_all();
}

std::vector<ModelRequest> MockModel::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

std::vector<ModelRequest> MockModel::main_turns() const {
  std::lock_guard lock(mutex_);
  std::vector<ModelRequest> out;
  for (const auto& r : requests_) {
    if (r.main_turn) out.push_back(r);
  }
  return out;
}

std::optional<ModelRequest> MockModel::wait_for(const std::function<bool(const ModelRequest&)>& pred,
                                                std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  std::optional<ModelRequest> found;
  changed_.wait_for(lock, timeout, [&] {
    for (const auto& r : requests_) {
      if (pred(r)) {
        found = r;
        return true;
      }
    }
    return false;
  });
  return found;
}

std::optional<ModelRequest> MockModel::wait_for_user_text(const std::string& text,
                                                          std::chrono::milliseconds timeout) const {
  return wait_for([&](const ModelRequest& r) { return r.main_turn && r.last_user.find(text) != std::string::npos; },
                  timeout);
}

std::vector<ToolResult> MockModel::tool_results() const {
  std::lock_guard lock(mutex_);
  return tool_results_;
}

std::optional<ToolResult> MockModel::wait_for_tool_result(const std::string& tool_suffix, std::size_t skip,
                                                          std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  std::optional<ToolResult> found;
  changed_.wait_for(lock, timeout, [&] {
    std::size_t seen = 0;
    for (const auto& t : tool_results_) {
      if (!ends_with(t.tool, tool_suffix)) continue;
      if (seen++ < skip) continue;
      found = t;
      return true;
    }
    return false;
  });
  return found;
}

bool MockModel::any_conversation_contains(const std::string& text) const {
  std::lock_guard lock(mutex_);
  for (const auto& r : requests_) {
    if (r.conversation.find(text) != std::string::npos) return true;
  }
  return false;
}

std::vector<ModelRequest> MockModel::main_turns_with(const std::string& marker) const {
  std::lock_guard lock(mutex_);
  std::vector<ModelRequest> out;
  for (const auto& r : requests_) {
    if (r.main_turn && r.conversation.find(marker) != std::string::npos) out.push_back(r);
  }
  return out;
}

std::string MockModel::conversations_apart(const std::vector<std::string>& markers) const {
  std::lock_guard lock(mutex_);
  std::string problems;
  std::vector<int> turns(markers.size(), 0);
  for (const auto& r : requests_) {
    if (!r.main_turn) continue;
    std::vector<std::string> held;
    for (std::size_t i = 0; i < markers.size(); ++i) {
      if (r.conversation.find(markers[i]) == std::string::npos) continue;
      held.push_back(markers[i]);
      ++turns[i];
    }
    if (held.size() > 1) {
      problems += "request #" + std::to_string(r.seq) + " holds " + std::to_string(held.size()) + " markers:";
      for (const auto& m : held) problems += " " + m;
      problems += "\n";
    }
  }
  for (std::size_t i = 0; i < markers.size(); ++i) {
    if (turns[i] == 0) problems += "no main turn holds " + markers[i] + "\n";
  }
  return problems;
}

std::string MockModel::describe() const {
  std::lock_guard lock(mutex_);
  std::string out = "mock model requests (" + std::to_string(requests_.size()) + "):\n";
  for (const auto& r : requests_) {
    std::string last = r.last_user.size() > 300 ? r.last_user.substr(0, 300) + "..." : r.last_user;
    out += "  #" + std::to_string(r.seq) + " " + r.method + " " + r.target + (r.main_turn ? " [main]" : " [side]") +
           " last_user=" + json(last).dump() + " reply=" + json(r.reply).dump() + "\n";
  }
  for (const auto& t : tool_results_) {
    const std::string output = t.output.size() > 600 ? t.output.substr(0, 600) + "..." : t.output;
    out += "  tool result of " + t.tool + " (in #" + std::to_string(t.seq) + "): " + json(output).dump() + "\n";
  }
  return out;
}

}  // namespace agentworks::e2e
