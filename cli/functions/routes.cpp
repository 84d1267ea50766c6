#include "functions/routes.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "agentworks/validation.hpp"

namespace agentworks::cli::functions {
using nlohmann::json;
namespace {

void check(const char* what, long long value, long long low, long long high) {
  if (value < low || value > high) {
    throw Error(ErrorCode::bad_request, std::string(what) + " must be between " + std::to_string(low) + " and " +
                                            std::to_string(high) + ", not " + std::to_string(value));
  }
}

void add(std::string& query, const char* key, const std::string& value) {
  query += (query.empty() ? "?" : "&") + std::string(key) + "=" + url_encode(value);
}

}  // namespace

std::string crew_path(std::string_view crew) { return "/v1/crews/" + url_encode(crew); }
std::string call_path(std::string_view call_id) { return "/v1/calls/" + url_encode(call_id); }

std::string status_path(std::string_view call_id, const StatusQuery& q) {
  std::string query;
  if (q.after) {
    check("after", *q.after, -1, 1'000'000'000);
    add(query, "after", std::to_string(*q.after));
  }
  if (q.message_limit) {
    check("message_limit", *q.message_limit, 1, kMaxMessageLimit);
    add(query, "message_limit", std::to_string(*q.message_limit));
  }
  if (q.after_event) {
    check("after_event", *q.after_event, -1, 1'000'000'000);
    add(query, "after_event", std::to_string(*q.after_event));
  }
  if (q.event_limit) {
    check("event_limit", *q.event_limit, 1, kMaxEventLimit);
    add(query, "event_limit", std::to_string(*q.event_limit));
  }
  check("wait_seconds", q.wait_seconds, 0, kMaxWaitSeconds);
  if (q.wait_seconds > 0) add(query, "wait_seconds", std::to_string(q.wait_seconds));
  return call_path(call_id) + query;
}

std::string file_path(std::string_view call_id, std::string_view name, std::optional<long long> offset,
                      std::optional<long long> limit) {
  if (name.empty()) throw Error(ErrorCode::bad_request, "the file name is empty");
  std::string query;
  add(query, "name", std::string(name));
  if (offset) {
    check("offset", *offset, 0, static_cast<long long>(1) << 53);
    add(query, "offset", std::to_string(*offset));
  }
  if (limit) {
    check("limit", *limit, 1, kMaxFilePageBytes);
    add(query, "limit", std::to_string(*limit));
  }
  return call_path(call_id) + "/file" + query;
}

std::string call_list_path(const std::optional<std::string>& crew, std::optional<long long> limit,
                           const std::optional<std::string>& before) {
  std::string query;
  if (limit) {
    check("limit", *limit, 1, kMaxCallListLimit);
    add(query, "limit", std::to_string(*limit));
  }
  if (crew) add(query, "crew", *crew);
  if (before) add(query, "before", *before);
  return "/v1/calls" + query;
}

json call_body(const std::string& function, const json& arguments, const std::optional<std::string>& submission_id,
               int wait_seconds) {
  if (function.empty()) throw Error(ErrorCode::bad_request, "the function name is empty");
  check("wait_seconds", wait_seconds, 0, kMaxWaitSeconds);
  json body = {{"function", function}, {"arguments", arguments}};
  if (submission_id) {
    check_submission_id(*submission_id);
    body["submission_id"] = *submission_id;
  }
  if (wait_seconds > 0) body["wait_seconds"] = wait_seconds;
  return body;
}

json cancel_body(int wait_seconds) {
  check("wait_seconds", wait_seconds, 0, kMaxWaitSeconds);
  json body = json::object();
  if (wait_seconds > 0) body["wait_seconds"] = wait_seconds;
  return body;
}

json allow_body(const std::optional<std::string>& claude_tools, const std::optional<std::string>& codex_sandbox,
                std::string_view flag) {
  json body = json::object();
  if (claude_tools) {
    json tools = json::array();
    std::size_t start = 0;
    while (!claude_tools->empty() && start <= claude_tools->size()) {
      const std::size_t comma = std::min(claude_tools->find(',', start), claude_tools->size());
      std::string tool = claude_tools->substr(start, comma - start);
      tool.erase(0, tool.find_first_not_of(" \t"));
      tool.erase(tool.find_last_not_of(" \t") + 1);
      if (tool.empty()) {
        throw Error(ErrorCode::usage, std::string(flag) + " has an empty entry in '" + *claude_tools +
                                          "'; give tool names separated by commas, e.g. Read,Grep,Bash");
      }
      tools.push_back(tool);
      start = comma + 1;
    }
    body["claude_tools"] = tools;
  }
  if (codex_sandbox) body["codex_sandbox"] = *codex_sandbox;
  return body;
}

ServerClient client_with_wait(const std::string& base_url, const std::string& token, int wait_seconds,
                              const std::string& ca_file) {
  ServerClientOptions options;
  options.ca_file = ca_file;
  options.request_timeout_ms += static_cast<long>(wait_seconds) * 1000;
  return ServerClient(base_url, token, options);
}

bool is_terminal(std::string_view status) {
  return status == "completed" || status == "failed" || status == "cancelled" || status == "interrupted";
}

}  // namespace agentworks::cli::functions
