#include "call/report_wire.hpp"

#include <nlohmann/json.hpp>
#include <set>

#include "agentworks/error.hpp"
#include "process/execution.hpp"

namespace agentworks::functions {

using nlohmann::json;

namespace {

// What the execution's parts produce (agent/agent_stream.cpp, call/call_executions.cpp): nothing else is accepted.
const std::set<std::string>& message_kinds() {
  static const std::set<std::string> kinds = {"stderr", "progress", "warning", "assistant", "commentary",
                                              "tool",   "plan",     "usage",   "error"};
  return kinds;
}
const std::set<std::string>& event_kinds() {
  static const std::set<std::string> kinds = {"usage",    "nudged",  "ended_silent", "correction_started",
                                              "timed_out", "stalled"};
  return kinds;
}

[[noreturn]] void refuse(const std::string& what) { throw Error(ErrorCode::bad_request, what); }

void only_keys(const json& j, const std::set<std::string>& known, const char* what) {
  if (!j.is_object()) refuse(std::string(what) + " must be an object");
  for (const auto& [key, value] : j.items())
    if (known.count(key) == 0) refuse(std::string(what) + ": unknown key '" + key + "'");
}

std::optional<std::string> opt_text(const json& j, const char* key, std::size_t limit) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  if (!it->is_string()) refuse(std::string(key) + " must be a string or null");
  std::string s = it->get<std::string>();
  if (s.size() > limit) refuse(std::string(key) + " is over " + std::to_string(limit) + " bytes");
  return s;
}

std::vector<ExecutionReport::Entry> entries(const json& j, const char* key, const std::set<std::string>& kinds) {
  std::vector<ExecutionReport::Entry> out;
  const auto it = j.find(key);
  if (it == j.end()) return out;
  if (!it->is_array() || it->size() > kMaxReportEntries)
    refuse(std::string(key) + " must be an array of at most " + std::to_string(kMaxReportEntries) + " entries");
  for (const auto& e : *it) {
    only_keys(e, {"kind", "text"}, key);
    const auto kind = opt_text(e, "kind", 64);
    const auto text = opt_text(e, "text", kMaxReportTextBytes);
    if (!kind || kinds.count(*kind) == 0) refuse(std::string(key) + ": unknown kind '" + kind.value_or("") + "'");
    out.push_back({*kind, text.value_or("")});
  }
  return out;
}

json entries_json(const std::vector<ExecutionReport::Entry>& list) {
  json out = json::array();
  for (const auto& e : list) out.push_back({{"kind", e.kind}, {"text", e.text}});
  return out;
}

}  // namespace

json report_to_json(const ExecutionReport& r) {
  json j = json::object();
  if (r.agent) j["agent"] = *r.agent;
  if (!r.session.empty()) j["session"] = r.session;
  if (r.agent_version) j["agent_version"] = *r.agent_version;
  if (r.correction) j["correction"] = true;
  if (!r.messages.empty()) j["messages"] = entries_json(r.messages);
  if (r.dropped > 0) j["dropped"] = r.dropped;
  if (r.progress) j["progress"] = *r.progress;
  if (!r.events.empty()) j["events"] = entries_json(r.events);
  return j;
}

ExecutionReport report_from_json(const json& j) {
  only_keys(j, {"agent", "session", "agent_version", "correction", "messages", "dropped", "progress", "events"},
            "the report");
  ExecutionReport r;
  r.agent = opt_text(j, "agent", 16);
  if (r.agent && *r.agent != "claude" && *r.agent != "codex") refuse("agent must be claude or codex");
  r.session = opt_text(j, "session", 128).value_or("");
  if (!r.session.empty() && !r.agent) refuse("session comes with its agent");
  r.agent_version = opt_text(j, "agent_version", 128);
  if (const auto it = j.find("correction"); it != j.end()) {
    if (!it->is_boolean()) refuse("correction must be true or false");
    r.correction = it->get<bool>();
  }
  r.messages = entries(j, "messages", message_kinds());
  if (const auto it = j.find("dropped"); it != j.end()) {
    if (!it->is_number_integer() || it->get<std::int64_t>() < 0 || it->get<std::int64_t>() > kMaxCallMessages * 1000)
      refuse("dropped must be a count of lines");
    r.dropped = it->get<std::int64_t>();
  }
  r.progress = opt_text(j, "progress", kMaxReportTextBytes);
  r.events = entries(j, "events", event_kinds());
  return r;
}

json outcome_to_json(const ExecutionOutcome& o) {
  const char* status = o.status == ExecutionOutcome::Status::completed ? "completed"
                       : o.status == ExecutionOutcome::Status::failed  ? "failed"
                                                                        : "cancelled";
  json j{{"status", status}};
  if (o.answer) j["answer"] = *o.answer;
  if (o.result_json) j["result"] = json::parse(*o.result_json);
  if (o.result_file) j["result_file"] = *o.result_file;
  if (o.error_code) j["error_code"] = *o.error_code;
  if (o.error_message) j["error_message"] = *o.error_message;
  return j;
}

ExecutionOutcome outcome_from_json(const json& j) {
  only_keys(j, {"status", "answer", "result", "result_file", "error_code", "error_message"}, "the outcome");
  ExecutionOutcome o;
  const auto status = opt_text(j, "status", 16);
  if (status == std::optional<std::string>("completed")) o.status = ExecutionOutcome::Status::completed;
  else if (status == std::optional<std::string>("failed")) o.status = ExecutionOutcome::Status::failed;
  else if (status == std::optional<std::string>("cancelled")) o.status = ExecutionOutcome::Status::cancelled;
  else refuse("status must be completed, failed or cancelled");
  o.answer = opt_text(j, "answer", kMaxAnswerBytes);
  if (const auto it = j.find("result"); it != j.end() && !it->is_null()) {
    std::string text = it->dump();
    if (text.size() > kMaxAnswerBytes) refuse("result is over " + std::to_string(kMaxAnswerBytes) + " bytes");
    o.result_json = std::move(text);
  }
  o.result_file = opt_text(j, "result_file", 256);
  o.error_code = opt_text(j, "error_code", 64);
  o.error_message = opt_text(j, "error_message", kMaxReportTextBytes);
  const bool failed = o.status != ExecutionOutcome::Status::completed;
  if (failed != o.error_code.has_value()) refuse("error_code comes with a failed or cancelled status, and only then");
  return o;
}

json explicit_answer_to_json(const ExplicitAnswer& a) {
  return json{{"sent", a.sent ? json(*a.sent) : json(nullptr)}, {"declined", a.declined}};
}

ExplicitAnswer explicit_answer_from_json(const json& j) {
  only_keys(j, {"sent", "declined"}, "the explicit answer");
  ExplicitAnswer a;
  a.sent = opt_text(j, "sent", kMaxAnswerBytes);
  if (const auto it = j.find("declined"); it != j.end()) {
    if (!it->is_boolean()) refuse("declined must be true or false");
    a.declined = it->get<bool>();
  }
  return a;
}

}  // namespace agentworks::functions
