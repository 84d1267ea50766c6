#include "mock_model/mock_model.hpp"

#include <nlohmann/json.hpp>
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

}  // namespace

MockModel::MockModel() {
  listener_ = std::make_unique<HttpListener>([this](const HttpRequest& req, HttpWriter& out) { handle(req, out); });
}

MockModel::~MockModel() { listener_.reset(); }

int MockModel::port() const { return listener_->port(); }
std::string MockModel::anthropic_base_url() const { return "http://127.0.0.1:" + std::to_string(port()); }
std::string MockModel::openai_base_url() const { return anthropic_base_url() + "/v1"; }

void MockModel::set_default_reply(const std::string& text) {
  std::lock_guard lock(mutex_);
  default_reply_ = text;
}
void MockModel::queue_reply(const std::string& text) {
  std::lock_guard lock(mutex_);
  queued_.push_back(text);
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

std::string MockModel::next_reply() {
  if (queued_.empty()) return default_reply_;
  std::string r = queued_.front();
  queued_.pop_front();
  return r;
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
  {
    std::lock_guard lock(mutex_);
    r.seq = static_cast<int>(requests_.size()) + 1;
    if (r.main_turn) {
      r.reply = next_reply();
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

  if (r.api == "other") {  // HEAD / (Claude's connectivity probe) and anything else: an empty 200
    out.head(200, "application/json", req.method == "HEAD" ? 0 : 2);
    if (req.method != "HEAD") out.write("{}");
    return;
  }
  const std::string id = (r.api == "anthropic" ? "msg_mock_" : "resp_mock_") + std::to_string(r.seq);
  const auto body = json::parse(req.body, nullptr, false);
  const bool stream = body.is_object() && body.value("stream", false);
  if (!stream) {
    const std::string msg = anthropic_text_message(r.reply, id);
    out.head(200, "application/json", static_cast<long>(msg.size()));
    out.write(msg);
    return;
  }
  const auto events = r.api == "anthropic" ? anthropic_text_stream(r.reply, id) : responses_text_stream(r.reply, id);
  out.head(200, "text/event-stream");
  for (std::size_t i = 0; i < events.size() && out.ok(); ++i) {
    out.write(events[i]);
    if (i == 0 && delay.count() > 0) std::this_thread::sleep_for(delay);
  }
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

bool MockModel::any_conversation_contains(const std::string& text) const {
  std::lock_guard lock(mutex_);
  for (const auto& r : requests_) {
    if (r.conversation.find(text) != std::string::npos) return true;
  }
  return false;
}

std::string MockModel::describe() const {
  std::lock_guard lock(mutex_);
  std::string out = "mock model requests (" + std::to_string(requests_.size()) + "):\n";
  for (const auto& r : requests_) {
    std::string last = r.last_user.size() > 300 ? r.last_user.substr(0, 300) + "..." : r.last_user;
    out += "  #" + std::to_string(r.seq) + " " + r.method + " " + r.target + (r.main_turn ? " [main]" : " [side]") +
           " last_user=" + json(last).dump() + "\n";
  }
  return out;
}

}  // namespace agentworks::e2e
