#include "mcp/agent_run_tools.hpp"

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "functions/routes.hpp"
#include "functions/target.hpp"

#include "mcp/protocol_version.hpp"

namespace agentworks::cli::mcp {
using nlohmann::json;

json initialize_answer(const json& params, const std::string& instructions) {
  const auto requested = params.contains("protocolVersion") && params["protocolVersion"].is_string()
                             ? params["protocolVersion"].get<std::string>()
                             : std::string();
  return {{"protocolVersion", negotiate_version(requested)},
          {"capabilities", {{"tools", json::object()}}},
          {"serverInfo", {{"name", "agentworks"}, {"version", "0.1.0"}}},
          {"instructions", instructions}};
}

json text_result(const std::string& text, bool is_error) {
  return {{"content", json::array({{{"type", "text"}, {"text", text}}})}, {"isError", is_error}};
}

json error_result(const Error& e) {
  const std::string code(code_name(e.code()));
  json result = text_result("agentworks: " + std::string(e.what()) + " [" + code + "]", true);
  result["structuredContent"] = {{"error", {{"code", code}, {"message", e.what()}}}};
  return result;
}

void check_arguments(const json& args, std::initializer_list<std::string_view> allowed) {
  if (args.is_null()) return;  // no arguments at all
  if (!args.is_object()) throw Error(ErrorCode::bad_request, "the arguments must be an object");
  for (const auto& [key, value] : args.items()) {
    bool known = false;
    for (const auto name : allowed) known = known || key == name;
    if (!known) throw Error(ErrorCode::bad_request, "unknown argument '" + key + "'");
  }
}

std::string string_argument(const json& args, const char* key) {
  const auto it = args.find(key);
  if (it == args.end() || !it->is_string() || it->get<std::string>().empty())
    throw Error(ErrorCode::bad_request, std::string("'") + key + "' (a non-empty string) is required");
  return it->get<std::string>();
}

json speaking_tools(std::string_view send_message_description, std::string_view no_reply_description) {
  const json text_schema = {{"type", "object"},
                            {"properties",
                             {{"text", {{"type", "string"}, {"description", "The message (1-12,000 characters)"}}}}},
                            {"required", json::array({"text"})},
                            {"additionalProperties", false}};
  const json reason_schema = {
      {"type", "object"},
      {"properties", {{"reason", {{"type", "string"}, {"description", "Why (at most 500 characters)"}}}}},
      {"additionalProperties", false}};
  return json::array({{{"name", "send_message"},
                       {"description", std::string(send_message_description)},
                       {"inputSchema", text_schema}},
                      {{"name", "no_reply"},
                       {"description", std::string(no_reply_description)},
                       {"inputSchema", reason_schema}}});
}

json speak(ServerClient& client, const std::string& base, std::string_view name, const json& args,
           const std::string& submission_id) {
  if (name == "send_message") {
    check_arguments(args, {"text"});
    json body = {{"text", string_argument(args, "text")}};
    if (!submission_id.empty()) body["submission_id"] = submission_id;
    return client.post(base + "/messages", body);
  }
  check_arguments(args, {"reason"});
  json body = json::object();
  if (args.contains("reason")) body["reason"] = string_argument(args, "reason");
  return client.post(base + "/no-reply", body);
}

namespace {

std::optional<long long> int_arg(const json& args, const char* key) {
  const auto it = args.find(key);
  if (it == args.end() || it->is_null()) return std::nullopt;
  if (!it->is_number_integer()) throw Error(ErrorCode::bad_request, std::string("'") + key + "' must be an integer");
  return it->get<long long>();
}

}  // namespace

json run_function_tool(ServerClient client, const std::string& scope, const std::string& action, const json& args) {
  static const std::map<std::string, std::set<std::string>> kArgs = {
      {"list", {"target"}},
      {"call", {"target", "function", "arguments", "submission_id"}},
      {"status", {"call_id", "after", "message_limit", "after_event"}},
      {"reply", {"call_id", "request_id", "answer"}},
      {"cancel", {"call_id"}}};
  if (!args.is_object()) throw Error(ErrorCode::bad_request, "the arguments must be an object");
  for (const auto& [key, value] : args.items())
    if (!kArgs.at(action).contains(key)) throw Error(ErrorCode::bad_request, "unknown argument '" + key + "'");
  functions::FunctionsTarget target{std::move(client), scope};
  if (action == "list")
    return target.client.get(target.path(functions::crew_path(string_argument(args, "target")) + "/functions"));
  if (action == "call") {
    const auto it = args.find("arguments");
    if (it == args.end() || !it->is_object()) throw Error(ErrorCode::bad_request, "'arguments' must be an object");
    std::optional<std::string> submission;
    if (args.contains("submission_id")) submission = string_argument(args, "submission_id");
    const json body = functions::call_body(string_argument(args, "function"), *it, submission, 0);
    return target.client.post(target.path(functions::crew_path(string_argument(args, "target")) + "/calls"), body);
  }
  const std::string call_id = string_argument(args, "call_id");
  if (action == "status") {
    functions::StatusQuery query;
    query.after = int_arg(args, "after");
    query.message_limit = int_arg(args, "message_limit");
    query.after_event = int_arg(args, "after_event");
    return target.client.get(target.path(functions::status_path(call_id, query)));
  }
  if (action == "reply")
    return target.client.post(target.path(functions::call_path(call_id) + "/replies"),
                              json{{"request_id", string_argument(args, "request_id")},
                                   {"answer", string_argument(args, "answer")}});
  return target.client.post(target.path(functions::call_path(call_id) + "/cancel"), functions::cancel_body(0));
}


}  // namespace agentworks::cli::mcp
