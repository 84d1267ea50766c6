#include "agent/agent_stream.hpp"

#include <nlohmann/json.hpp>
#include <unordered_map>

namespace agentworks::functions {

using nlohmann::json;

namespace {

constexpr std::size_t kMaxErrorText = 2000;

std::string str(const json& o, const char* key) {
  if (!o.is_object()) return "";
  const auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : "";
}

long long num(const json& o, const char* key) {
  if (!o.is_object()) return 0;
  const auto it = o.find(key);
  return it != o.end() && it->is_number_integer() ? it->get<long long>() : 0;
}

std::string usage_text(const json& usage, const json& cost) {
  if (!usage.is_object()) return "";
  std::string s = "input_tokens=" + std::to_string(num(usage, "input_tokens")) +
                  " output_tokens=" + std::to_string(num(usage, "output_tokens"));
  if (const long long cached = num(usage, "cached_input_tokens") + num(usage, "cache_read_input_tokens"); cached > 0)
    s += " cached_input_tokens=" + std::to_string(cached);
  if (cost.is_number()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6f", cost.get<double>());
    s += std::string(" cost_usd=") + buf;
  }
  return s;
}

// What an agent is doing, said for a person reading a call's progress: the agentworks tools and the CLIs' common
// tools by what they do, any other MCP tool by its name and server, never a raw "mcp__server__tool".
std::string doing(const std::string& server, const std::string& tool) {
  static const std::unordered_map<std::string, std::string> kAgentworks = {
      {"request_input", "asking its caller a question"},
      {"send_message", "sending a message"},
      {"no_reply", "declining to answer"},
      {"list_functions", "looking up functions"},
      {"call_function", "calling a function"},
      {"get_function_call", "following a function call"},
      {"reply_function_call", "answering a function call's question"},
      {"cancel_function_call", "cancelling a function call"},
      {"schedule_message_wakeup", "scheduling a wakeup"},
      {"cancel_message_wakeup", "cancelling a wakeup"},
      {"list_message_wakeups", "looking at its wakeups"}};
  static const std::unordered_map<std::string, std::string> kBuiltIn = {
      {"Bash", "running a shell command"}, {"Read", "reading a file"},        {"Edit", "editing a file"},
      {"MultiEdit", "editing a file"},     {"Write", "writing a file"},       {"NotebookEdit", "editing a notebook"},
      {"Grep", "searching the files"},     {"Glob", "searching the files"},   {"LS", "listing a folder"},
      {"WebFetch", "reading a web page"},  {"WebSearch", "searching the web"}, {"Task", "running a subagent"},
      {"TodoWrite", "planning"}};
  if (server == "agentworks")
    if (const auto it = kAgentworks.find(tool); it != kAgentworks.end()) return it->second;
  if (!server.empty()) return "using " + tool + " (from " + server + ")";
  if (const auto it = kBuiltIn.find(tool); it != kBuiltIn.end()) return it->second;
  return "using " + tool;
}

// Claude's name of a tool: "mcp__SERVER__TOOL" for an MCP server's, else the built-in's own name.
std::string claude_doing(const std::string& name) {
  if (name.rfind("mcp__", 0) == 0) {
    const auto split = name.find("__", 5);
    if (split != std::string::npos) return doing(name.substr(5, split - 5), name.substr(split + 2));
  }
  return doing("", name);
}

// A todo list as one plan message: "[x] done item; [ ] open item".
std::string plan_text(const json& items, const char* text_key, const char* done_key) {
  std::string s;
  if (!items.is_array()) return s;
  for (const auto& i : items) {
    bool done = false;
    if (i.contains(done_key) && i[done_key].is_boolean()) done = i[done_key].get<bool>();
    if (i.contains("status") && i["status"].is_string()) done = i["status"].get<std::string>() == "completed";
    const std::string mark = done ? "[x] " : (str(i, "status") == "in_progress" ? "[>] " : "[ ] ");
    s += (s.empty() ? "" : "; ") + mark + str(i, text_key);
  }
  return s;
}

// One stdout line as a JSON object; anything else marks the line malformed (and reads as an object of no type).
json parse_event(const std::string& line, AgentLine& out) {
  json j = json::parse(line, nullptr, false);
  if (j.is_object()) return j;
  out.malformed = true;
  return json::object();
}

class ClaudeStream final : public AgentStream {
 public:
  AgentLine read(const std::string& line) override {
    AgentLine out;
    const json j = parse_event(line, out);
    const std::string type = str(j, "type");
    if (type == "system" && str(j, "subtype") == "init") {
      out.session_id = str(j, "session_id");
      if (const std::string v = str(j, "claude_code_version"); !v.empty()) out.version = v;
      out.progress = "started (model " + str(j, "model") + ")";
    } else if (type == "assistant" && j.contains("message")) {
      read_assistant(j["message"], out);
    } else if (type == "user" && j.contains("message")) {
      read_tool_results(j["message"], out);
    } else if (type == "result") {
      AgentTerminal t;
      t.ok = j.contains("is_error") && j["is_error"].is_boolean() && !j["is_error"].get<bool>();
      t.session_id = str(j, "session_id");
      t.text = str(j, "result");
      if (!t.ok) {
        t.error = str(j, "subtype") + (t.text.empty() ? "" : ": " + t.text);
        if (j.contains("errors") && j["errors"].is_array() && !j["errors"].empty()) t.error += " " + j["errors"].dump();
        t.error = t.error.substr(0, kMaxErrorText);
      }
      const json usage = j.contains("usage") ? j["usage"] : json();
      const json cost = j.contains("total_cost_usd") ? j["total_cost_usd"] : json();
      if (const std::string u = usage_text(usage, cost); !u.empty()) {
        out.usage = u + " turns=" + std::to_string(num(j, "num_turns"));
        out.messages.push_back({"usage", *out.usage});
      }
      if (!t.ok) out.messages.push_back({"error", t.error});
      out.progress = t.ok ? "finished" : "failed";
      out.terminal = t;
    }
    return out;
  }

 private:
  void read_assistant(const json& message, AgentLine& out) {
    if (!message.contains("content") || !message["content"].is_array()) return;
    std::string text;
    for (const auto& block : message["content"]) {
      const std::string kind = str(block, "type");
      if (kind == "text") {
        text += str(block, "text");
      } else if (kind == "tool_use") {
        const std::string name = str(block, "name");
        tools_[str(block, "id")] = name;
        if ((name == "TodoWrite" || name == "TaskCreate") && block.contains("input") && block["input"].contains("todos")) {
          out.messages.push_back({"plan", plan_text(block["input"]["todos"], "content", "done")});
        }
        out.messages.push_back({"tool", name + ": started"});
        out.progress = claude_doing(name);
      }
    }
    if (!text.empty()) {
      last_assistant_ = text;
      out.messages.insert(out.messages.begin(), AgentMessage{"assistant", text});
      if (!out.progress) out.progress = "writing";
    }
  }

  void read_tool_results(const json& message, AgentLine& out) {
    if (!message.contains("content") || !message["content"].is_array()) return;
    for (const auto& block : message["content"]) {
      if (str(block, "type") != "tool_result") continue;
      const auto it = tools_.find(str(block, "tool_use_id"));
      const std::string name = it == tools_.end() ? "tool" : it->second;
      const bool failed = block.contains("is_error") && block["is_error"].is_boolean() && block["is_error"].get<bool>();
      out.messages.push_back({"tool", name + (failed ? ": failed" : ": done")});
      out.progress = "thinking";
    }
  }

  std::unordered_map<std::string, std::string> tools_;  // tool_use id -> tool name
};

class CodexStream final : public AgentStream {
 public:
  AgentLine read(const std::string& line) override {
    AgentLine out;
    const json j = parse_event(line, out);
    const std::string type = str(j, "type");
    if (type == "thread.started") {
      out.session_id = str(j, "thread_id");
      out.progress = "started";
    } else if (type == "turn.started") {
      out.progress = "thinking";
    } else if (type == "item.started" || type == "item.updated" || type == "item.completed") {
      if (j.contains("item")) read_item(j["item"], type == "item.started", type == "item.completed", out);
    } else if (type == "turn.completed") {
      AgentTerminal t;
      t.ok = error_.empty();
      t.error = error_;
      const json usage = j.contains("usage") ? j["usage"] : json();
      if (const std::string u = usage_text(usage, json()); !u.empty()) {
        out.usage = u;
        out.messages.push_back({"usage", u});
      }
      out.progress = "finished";
      out.terminal = t;
    } else if (type == "turn.failed") {
      AgentTerminal t;
      t.error = (j.contains("error") ? str(j["error"], "message") : std::string()).substr(0, kMaxErrorText);
      if (t.error.empty()) t.error = error_.empty() ? "the turn failed" : error_;
      last_error_ = t.error;
      out.messages.push_back({"error", t.error});
      out.progress = "failed";
      out.terminal = t;
    } else if (type == "error") {
      // A stream error; Codex may still recover and complete the turn, which clears it.
      error_ = str(j, "message").substr(0, kMaxErrorText);
      last_error_ = error_;
      out.messages.push_back({"error", error_});
    }
    return out;
  }

 private:
  // Tool items are told once when they start and once when they end; plans on every update.
  void read_item(const json& item, bool started, bool completed, AgentLine& out) {
    const std::string kind = str(item, "type");
    const std::string status = str(item, "status");
    if (kind == "agent_message") {
      if (!completed) return;
      last_assistant_ = str(item, "text");
      error_.clear();
      out.messages.push_back({"assistant", last_assistant_});
      out.progress = "writing";
    } else if (kind == "command_execution") {
      std::string s = completed ? (status == "failed" || status == "declined" ? "failed" : "done") : "started";
      if (completed && item.contains("exit_code") && item["exit_code"].is_number_integer())
        s += " (exit " + std::to_string(item["exit_code"].get<long long>()) + ")";
      if (!started && !completed) return;
      out.messages.push_back({"tool", "shell: " + s});
      out.progress = completed ? "thinking" : "running a shell command";
    } else if (kind == "mcp_tool_call") {
      const std::string name = str(item, "server") + "." + str(item, "tool");
      const std::string what = doing(str(item, "server"), str(item, "tool"));
      const std::string s = completed ? (status == "failed" || !str(item, "error").empty() ? "failed" : "done") : "started";
      if (!started && !completed) return;
      out.messages.push_back({"tool", name + ": " + s});
      out.progress = completed ? "thinking" : what;
    } else if (kind == "file_change") {
      if (!completed) return;
      const auto n = item.contains("changes") && item["changes"].is_array() ? item["changes"].size() : 0;
      out.messages.push_back({"tool", "file_change: " + (status.empty() ? std::string("done") : status) + " (" +
                                          std::to_string(n) + " file" + (n == 1 ? "" : "s") + ")"});
    } else if (kind == "web_search") {
      if (!started && !completed) return;
      out.messages.push_back({"tool", std::string("web_search: ") + (completed ? "done" : "started")});
    } else if (kind == "todo_list" || kind == "plan") {
      const std::string plan = plan_text(item.contains("items") ? item["items"] : json(), "text", "completed");
      if (!plan.empty()) out.messages.push_back({"plan", plan});
    } else if (kind == "reasoning") {
      if (completed) out.progress = "reasoning";
    } else if (kind == "error") {
      if (completed) out.messages.push_back({"warning", str(item, "message")});
    }
  }

  std::string error_;  // the last stream error not followed by an answer
};

}  // namespace

std::unique_ptr<AgentStream> make_agent_stream(Runner runner) {
  if (runner == Runner::claude) return std::make_unique<ClaudeStream>();
  return std::make_unique<CodexStream>();
}

}  // namespace agentworks::functions
