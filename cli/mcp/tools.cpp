#include "mcp/tools.hpp"

#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "agentworks/local_protocol.hpp"
#include "agentworks/plugin_tools.hpp"
#include "agentworks/validation.hpp"
#include "mcp/jsonrpc.hpp"

namespace agentworks::cli::mcp {

using nlohmann::json;

namespace {

json string_prop(const std::string& description) { return {{"type", "string"}, {"description", description}}; }

json tool(const std::string& name, const std::string& description, json properties, json required) {
  return {{"name", name},
          {"description", description},
          {"inputSchema",
           {{"type", "object"},
            {"properties", std::move(properties)},
            {"required", std::move(required)},
            {"additionalProperties", false}}}};
}

[[noreturn]] void bad(const std::string& tool_name, const std::string& what) {
  throw RpcError(rpc_invalid_params, tool_name + ": " + what);
}

void only_known(const std::string& tool_name, const json& args, const std::set<std::string>& known) {
  for (const auto& [key, value] : args.items()) {
    if (!known.contains(key)) bad(tool_name, "unknown argument '" + key + "'");
  }
}

std::optional<std::string> opt_str(const std::string& tool_name, const json& args, const char* key) {
  const auto it = args.find(key);
  if (it == args.end() || it->is_null()) return std::nullopt;
  if (!it->is_string()) bad(tool_name, std::string("'") + key + "' must be a string");
  return it->get<std::string>();
}

std::string req_str(const std::string& tool_name, const json& args, const char* key) {
  auto v = opt_str(tool_name, args, key);
  if (!v || v->empty()) bad(tool_name, std::string("'") + key + "' is required");
  return *v;
}

std::string message_arg(const std::string& tool_name, const json& args) {
  auto text = req_str(tool_name, args, "message");
  // The content rule answers the same stable code as the bridge, the CLI and the server (a tool result).
  if (!valid_message_text(text)) throw Error(ErrorCode::invalid_message, tool_name + ": " + kMessageRule);
  return text;
}

void add_submission_id(const std::string& tool_name, const json& args, json& fields) {
  if (auto id = opt_str(tool_name, args, "submission_id")) {
    if (!valid_client_id(*id)) bad(tool_name, std::string("'submission_id' ") + kSubmissionIdRule);
    fields["submission_id"] = *id;
  }
}

const char* const kSubmissionHelp =
    "Optional id (1-200 printable ASCII) that makes a retry of this call safe: it is never stored twice. Every "
    "result carries the call's submission_id (one is made for you when you give none); to retry a call that "
    "failed or timed out, pass that same id.";

}  // namespace

// The chat's function tools and the `function` op's action each stands for; nullptr for other names.
const char* function_action(const std::string& name) {
  for (std::size_t i = 0; i < kFunctionTools.size(); ++i)
    if (name == kFunctionTools[i]) return kFunctionActions[i];
  return nullptr;
}

json function_tools(ToolsFor who) {
  const std::string made_by = who == ToolsFor::chat        ? "this chat"
                              : who == ToolsFor::execution ? "this execution"
                                                           : "this conversation";
  json tools = json::array();
  const json call_id = string_prop("The call (call_...), as call_function answered it.");
  tools.push_back(tool("list_functions",
                       "List the functions of a Crew (a project whose declared functions run as tracked calls) "
                       "that " + std::string(who == ToolsFor::chat ? "the person lets this chat use."
                                                                    : "this Crew may call."),
                       {{"target", string_prop("The Crew's name (or crw_... id).")}}, {"target"}));
  tools.push_back(tool("call_function",
                       "Call a Crew's function with JSON arguments. Answers at once with call_id and status; the "
                       "call runs on, and its questions and outcome come to this chat as messages (kind "
                       "call_question / call_outcome) unless notify is false.",
                       {{"target", string_prop("The Crew's name (or crw_... id).")},
                        {"function", string_prop("The function's name (see list_functions).")},
                        {"arguments", {{"type", "object"}, {"description", "The arguments its inputs schema asks."}}},
                        {"submission_id", string_prop(kSubmissionHelp)}},
                       {"target", "function", "arguments"}));
  tools.push_back(tool("get_function_call",
                       "Read a call " + made_by + " made: status, progress, messages, events, pending questions, and "
                       "once it ended its answer, result or error. Only completed, failed, cancelled or "
                       "interrupted is an outcome.",
                       {{"call_id", call_id},
                        {"after", {{"type", "integer"}, {"minimum", -1}, {"description", "Messages after this seq "
                                                                                        "(next_after)."}}},
                        {"message_limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", 500}}},
                        {"after_event", {{"type", "integer"}, {"minimum", -1}, {"description", "Events after this "
                                                                                              "seq (next_after_event)."}}}},
                       {"call_id"}));
  tools.push_back(tool("reply_function_call", "Answer a question a call " + made_by + " made is asking (pending_inputs).",
                       {{"call_id", call_id},
                        {"request_id", string_prop("The question's request_id (req_...).")},
                        {"answer", string_prop("The answer text.")}},
                       {"call_id", "request_id", "answer"}));
  tools.push_back(tool("cancel_function_call",
                       "Ask a call " + made_by + " made to end: it ends cancelled once its processes are gone; one that "
                       "already ended keeps its outcome.",
                       {{"call_id", call_id}}, {"call_id"}));
  if (who == ToolsFor::chat) {
    json& call = tools[1];
    call["inputSchema"]["properties"]["notify"] = {
        {"type", "boolean"}, {"description", "Tell this chat of the questions and the outcome (default true)."}};
  } else if (who == ToolsFor::conversation) {
    tools[1]["description"] = "Call a function of a Crew this Crew may call. Answers at once with call_id and status; "
                              "the call runs on, and its questions and outcome each start a new turn of this "
                              "conversation (kind call_question / call_outcome), so you may end this turn meanwhile.";
  } else {
    tools[1]["description"] = "Call a function of a Crew this function's Crew may call. Answers at once with call_id "
                              "and status; follow it with get_function_call until its status is an outcome "
                              "(completed, failed, cancelled or interrupted). Repeating the same call is the same "
                              "call.";
  }
  return tools;
}

json wakeup_tools(ToolsFor who) {
  const bool for_chat = who == ToolsFor::chat;
  const std::string here = for_chat ? "in this chat" : "in this conversation";
  const std::string whose = for_chat ? "this chat's agent" : "this conversation";
  json tools = json::array();
  tools.push_back(tool(
      "schedule_message_wakeup",
      "Ask to be prompted again later " + here + ", e.g. to check on something that takes time. The wakeup is "
      "kept by the server (it survives restarts); when it is due a message \"Wakeup ... NOTE\" starts a turn " +
      here + ". Incoming messages do not cancel it. Give after_minutes or at; give wakeup_id to move one you "
      "scheduled.",
      {{"after_minutes", {{"type", "integer"}, {"minimum", 1}, {"maximum", 43200},
                          {"description", "Minutes from now (1-43200, at most 30 days)."}}},
       {"at", string_prop("An RFC 3339 time with a zone, e.g. 2026-12-24T09:00:00Z, at most 30 days ahead.")},
       {"note", string_prop("What to do when it comes (1-1,000 characters); it is shown to you then.")},
       {"wakeup_id", string_prop("Reschedule this pending wakeup (wku_...) instead of adding one.")}},
      {"note"}));
  tools.push_back(tool("cancel_message_wakeup", "Cancel a pending wakeup of " + whose + ".",
                       {{"wakeup_id", string_prop("The wakeup (wku_...), as schedule_message_wakeup answered it.")}},
                       {"wakeup_id"}));
  tools.push_back(tool("list_message_wakeups",
                       "List the wakeups of " + whose + ": the pending ones first (with when they are due), then "
                       "the last others with their state (due, offered, delivered, cancelled, interrupted).",
                       json::object(), json::array()));
  return tools;
}

json tool_list() {
  json tools = json::array();
  tools.push_back(tool(
      "agent_message_ack",
      "Acknowledge a message another agent sent you: delivery=\"admitted\" as soon as it reaches you, "
      "\"processed\" once you have handled it. The sender sees the receipt.",
      {{"message_id", string_prop("The message_id of the message (msg_...).")},
       {"delivery", {{"type", "string"}, {"enum", {"admitted", "processed"}}, {"description", "admitted or processed"}}},
       {"submission_id", string_prop(kSubmissionHelp)}},
      {"message_id", "delivery"}));
  tools.push_back(tool(
      "agent_message_no_reply",
      "Decline to answer on purpose, when a message needs no answer from you. Without message_id: every message "
      "handed to you that you have not marked processed. The sender's receipt then reads no_reply (not your "
      "reason); a reply you send later still counts. Better than silence, which the sender cannot tell from a "
      "lost message.",
      {{"message_id", string_prop("The message_id you decline to answer (msg_...); omit for all you were handed.")},
       {"reason", string_prop("Why, for your own record (at most 500 characters); never sent to anyone.")},
       {"submission_id", string_prop(kSubmissionHelp)}},
      json::array()));
  tools.push_back(tool(
      "agent_message_reply",
      "Reply in the same conversation as a message you received, as your attached agent. Give message_id, or "
      "inbox (the message's inbox / reply_address) when the message id is no longer known; give neither to answer "
      "the one conversation of the messages you were handed (refused, with the list, when there are several).",
      {{"message_id", string_prop("The message_id you reply to (msg_...).")},
       {"inbox", string_prop("The conversation inbox (inb_...) to reply into, instead of message_id.")},
       {"message", string_prop("The reply text (1-20,000 characters).")},
       {"submission_id", string_prop(kSubmissionHelp)}},
      {"message"}));
  tools.push_back(tool("agent_message_send",
                       "Send a message to another agent of this account, as your attached agent. An answer, if "
                       "any, arrives later as a new message.",
                       {{"target", string_prop("\"agent:NAME\" (or just NAME) of the receiving agent; see "
                                               "agent_message_peers. \"crew:NAME\" talks to a Crew's own agent.")},
                        {"message", string_prop("The message text (1-20,000 characters).")},
                        {"submission_id", string_prop(kSubmissionHelp)}},
                       {"target", "message"}));
  tools.push_back(tool("agent_message_read",
                       "Read your agent's mailbox (messages sent to you), oldest first, a bounded page at a time. "
                       "Reading does not acknowledge anything.",
                       {{"after", string_prop("Cursor to read after: \"0\" (default, from the start) or the "
                                              "next_cursor of a previous read.")},
                        {"limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", 100}, {"description",
                                                                                           "At most this many "
                                                                                           "messages (1-100, "
                                                                                           "default 20)."}}}},
                       json::array()));
  tools.push_back(tool("agent_message_peers",
                       "List the other agents of this account you can message: name, purpose, and whether each "
                       "is connected now.",
                       json::object(), json::array()));
  for (auto& t : function_tools(ToolsFor::chat)) tools.push_back(std::move(t));
  for (auto& t : wakeup_tools(ToolsFor::chat)) tools.push_back(std::move(t));
  return {{"tools", tools}};
}

std::string prepare_tool_call(const std::string& name, const json& arguments, json& fields) {
  const json args = arguments.is_null() ? json::object() : arguments;
  if (!args.is_object()) bad(name, "arguments must be an object");
  fields = json::object();
  if (name == "agent_message_ack") {
    only_known(name, args, {"message_id", "delivery", "submission_id"});
    fields["message_id"] = req_str(name, args, "message_id");
    const auto delivery = req_str(name, args, "delivery");
    if (delivery != "admitted" && delivery != "processed") bad(name, "'delivery' must be \"admitted\" or \"processed\"");
    fields["delivery"] = delivery;
    fields["via"] = "agent";
    add_submission_id(name, args, fields);
    return std::string(local_protocol::op::ack);
  }
  if (name == "agent_message_no_reply") {
    only_known(name, args, {"message_id", "reason", "submission_id"});
    if (auto message_id = opt_str(name, args, "message_id"); message_id && !message_id->empty())
      fields["message_id"] = *message_id;
    if (auto reason = opt_str(name, args, "reason")) fields["reason"] = *reason;
    add_submission_id(name, args, fields);
    return std::string(local_protocol::op::no_reply);
  }
  if (name == "agent_message_reply") {
    only_known(name, args, {"message_id", "inbox", "message", "submission_id"});
    const auto message_id = opt_str(name, args, "message_id");
    const auto inbox = opt_str(name, args, "inbox");
    const bool has_id = message_id && !message_id->empty();
    const bool has_inbox = inbox && !inbox->empty();
    if (has_id && has_inbox) bad(name, "give 'message_id' or 'inbox', not both (or neither for the conversation of "
                                       "the messages you were handed)");
    if (has_id) fields["message_id"] = *message_id;
    if (has_inbox) fields["inbox_id"] = *inbox;
    fields["message"] = message_arg(name, args);
    add_submission_id(name, args, fields);
    return std::string(local_protocol::op::reply);
  }
  if (name == "agent_message_send") {
    only_known(name, args, {"target", "message", "submission_id"});
    auto target = req_str(name, args, "target");
    if (target.rfind("agent:", 0) != 0 && target.rfind("crew:", 0) != 0) target = "agent:" + target;
    if (!valid_message_target(target))
      bad(name, "'target' must be \"agent:NAME\" (an agent) or \"crew:NAME\" (a Crew's own agent) with a valid name");
    fields["target"] = target;
    fields["message"] = message_arg(name, args);
    add_submission_id(name, args, fields);
    return std::string(local_protocol::op::send);
  }
  if (name == "agent_message_read") {
    only_known(name, args, {"after", "limit"});
    if (auto after = opt_str(name, args, "after")) fields["after"] = *after;
    if (const auto it = args.find("limit"); it != args.end() && !it->is_null()) {
      if (!it->is_number_integer()) bad(name, "'limit' must be an integer from 1 to 100");
      const auto limit = it->get<long long>();
      if (limit < 1 || limit > 100) bad(name, "'limit' must be an integer from 1 to 100");
      fields["limit"] = limit;
    }
    return std::string(local_protocol::op::read);
  }
  if (name == "agent_message_peers") {
    only_known(name, args, {});
    return std::string(local_protocol::op::peers);
  }
  if (const char* action = function_action(name)) {
    static const std::map<std::string, std::set<std::string>> kArgs = {
        {"list", {"target"}},
        {"call", {"target", "function", "arguments", "submission_id", "notify"}},
        {"status", {"call_id", "after", "message_limit", "after_event"}},
        {"reply", {"call_id", "request_id", "answer"}},
        {"cancel", {"call_id"}}};
    only_known(name, args, kArgs.at(action));
    fields = args;  // the bridge checks each field's type and range, the server the rest
    fields["action"] = action;
    return std::string(local_protocol::op::function);
  }
  for (std::size_t i = 0; i < kWakeupTools.size(); ++i) {
    if (name != kWakeupTools[i]) continue;
    static const std::map<std::string, std::set<std::string>> kArgs = {
        {"schedule", {"after_minutes", "at", "note", "wakeup_id"}}, {"cancel", {"wakeup_id"}}, {"list", {}}};
    only_known(name, args, kArgs.at(kWakeupActions[i]));
    fields = args;  // the bridge checks each field's type, the server the ranges
    fields["action"] = kWakeupActions[i];
    return std::string(local_protocol::op::wakeup);
  }
  throw RpcError(rpc_invalid_params, "unknown tool '" + name + "'; tools/list names the tools");
}

}  // namespace agentworks::cli::mcp
