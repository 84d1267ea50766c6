#include "mcp/full_actions.hpp"

#include <iostream>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "mcp/jsonrpc.hpp"
#include "mcp/tool_args.hpp"

namespace agentworks::cli::mcp {
using nlohmann::json;
namespace {

json prop(const char* type, const std::string& description) { return {{"type", type}, {"description", description}}; }

json integer(const std::string& description, long long minimum, std::optional<long long> maximum = std::nullopt) {
  json p = {{"type", "integer"}, {"minimum", minimum}, {"description", description}};
  if (maximum) p["maximum"] = *maximum;
  return p;
}

// A tool's input schema: flat (no oneOf/anyOf/allOf at the top: model APIs refuse them, and some clients drop such
// tools), strict (additionalProperties false), its own `required`.
json input(json properties, std::initializer_list<const char*> required) {
  json schema = {{"type", "object"}, {"properties", std::move(properties)}, {"additionalProperties", false}};
  if (required.size() > 0) schema["required"] = json::array();
  for (const char* r : required) schema["required"].push_back(r);
  return schema;
}

// The {code, message} of an error: a tool error's, and (`nullable`) a Call's own, null until it failed.
json error_object(bool nullable, const std::string& description) {
  json schema = {{"properties", {{"code", prop("string", "The stable error code")},
                                 {"message", prop("string", "What went wrong and what to do")}}},
                 {"description", description}};
  if (nullable) {
    schema["type"] = json::array({"object", "null"});
  } else {
    schema["type"] = "object";
    schema["required"] = {"code", "message"};
  }
  return schema;
}

// A tool's output schema: its success answer, or the tool error's {"error":{code,message}} (clients check every
// structuredContent against the schema, errors included). Extra fields are allowed: the server may add some.
json output(json properties, std::initializer_list<const char*> required) {
  if (!properties.contains("error")) properties["error"] = error_object(false, "Why the tool refused");
  json success = json::array();
  for (const char* r : required) success.push_back(r);
  return {{"type", "object"},
          {"properties", std::move(properties)},
          {"anyOf", json::array({{{"required", success}}, {{"required", json::array({"error"})}}})}};
}

json typed(std::initializer_list<const char*> types, const std::string& description) {
  json list = json::array();
  for (const char* t : types) list.push_back(t);
  return {{"type", list}, {"description", description}};
}

json tool(const char* name, const std::string& description, json input_schema,
          std::optional<json> output_schema = std::nullopt) {
  json t = {{"name", name}, {"description", description}, {"inputSchema", std::move(input_schema)}};
  if (output_schema) t["outputSchema"] = std::move(*output_schema);
  return t;
}

// The Call record (docs/protocol.md "Crews and functions").
json call_output(bool with_cancel) {
  json properties = {
      {"call_id", prop("string", "The call (call_...)")},
      {"status", prop("string", "running, waiting_input, then the outcome: completed, failed, cancelled or interrupted")},
      {"crew_name", prop("string", "The Crew")},
      {"function", prop("string", "The function")},
      {"progress", typed({"string", "null"}, "The last progress text")},
      {"messages", {{"type", "array"}, {"description", "The execution's messages after `after`"}}},
      {"next_after", typed({"integer", "null"}, "`after` for the next page of messages")},
      {"next_after_event", typed({"integer", "null"}, "`after_event` for the next page of events")},
      {"pending_inputs", {{"type", "array"}, {"description", "Questions waiting for functions_reply"}}},
      {"answer", typed({"string", "null"}, "The final free text")},
      {"result", {{"description", "The result JSON, checked by the function's output schema"}}},
      {"result_file", typed({"string", "null"}, "The file holding a result too large to inline")},
      {"files", {{"type", "array"}, {"description", "The call's output files (read with functions_read)"}}},
      {"error", error_object(true, "Why the call failed, was cancelled or interrupted; or why the tool refused")}};
  if (!with_cancel) return output(std::move(properties), {"call_id", "status"});
  properties["cancel"] = prop("string", "requested, cancelled or already_ended");
  return output(std::move(properties), {"call_id", "status", "cancel"});
}

json receipt_output() {
  return output({{"accepted", prop("boolean", "The message is durably stored")},
                 {"message_id", prop("string", "The message (msg_...)")},
                 {"conversation_id", prop("string", "The conversation (cnv_...)")},
                 {"inbox_id", prop("string", "The conversation's inbox: read it for answers")}},
                {"message_id", "inbox_id"});
}

json wakeup_output() {
  return output({{"wakeup_id", prop("string", "The wakeup (wku_...)")},
                 {"agent_name", prop("string", "The agent it prompts")},
                 {"note", prop("string", "What the woken chat is to do")},
                 {"due_at", prop("integer", "When it is due (Unix seconds)")},
                 {"state", prop("string", "pending, due, offered, delivered, cancelled or interrupted")}},
                {"wakeup_id", "state"});
}

json functions_tools() {
  const json target = prop("string", "The Crew: its name (yours) or crew_id (crw_..., another account's)");
  const json call_id = prop("string", "The call (call_...)");
  json tools = json::array();
  tools.push_back(tool("functions_list", "List the functions of a Crew you may call, with their input schemas.",
                       input({{"target", target}}, {"target"}),
                       output({{"crew_id", prop("string", "The Crew's id")},
                               {"crew_name", prop("string", "The Crew's name")},
                               {"functions", {{"type", "array"}, {"description", "name, description, inputs, "
                                                                                  "output_schema, runner, timeouts"}}}},
                              {"crew_name", "functions"})));
  // No output schema: a client that takes tasks gets this call as a task whose result is text only.
  tools.push_back(tool(
      "functions_call",
      "Start a Crew's function; answers its call_id and status at once (or the outcome, with wait_seconds). Only "
      "status completed, failed, cancelled or interrupted is an outcome: follow the call with functions_status.",
      input({{"target", target},
             {"function", prop("string", "The function's name (see functions_list)")},
             {"arguments", {{"type", "object"}, {"description", "The function's arguments, checked against its inputs "
                                                                "schema before anything starts"}}},
             {"submission_id", prop("string", "Optional id (1-200 printable ASCII) that makes a retried call safe: a "
                                              "repeat answers the call already accepted")},
             {"wait_seconds", integer("Seconds to wait for the call's outcome (capped at 25)", 0)}},
            {"target", "function", "arguments"})));
  tools.push_back(tool(
      "functions_status",
      "Read a call: its status, progress, messages, questions and, once it ended, its outcome. Poll with "
      "wait_seconds=25 and the next_after / next_after_event you last saw until status is completed, failed, "
      "cancelled or interrupted.",
      input({{"call_id", call_id},
             {"after", integer("Messages after this seq (-1 from the start; then next_after)", -1)},
             {"message_limit", integer("At most this many messages (1-500, default 100)", 1, 500)},
             {"after_event", integer("Events after this seq (-1 from the start; then next_after_event)", -1)},
             {"wait_seconds", integer("Seconds to wait for the next message or event (capped at 25)", 0)}},
            {"call_id"}),
      call_output(false)));
  tools.push_back(tool(
      "functions_read", "Read a page of a call's output file (content for text, content_base64 for binary).",
      input({{"call_id", call_id},
             {"file", prop("string", "The file's name relative to the call's folder (see files in functions_status)")},
             {"offset", integer("Byte offset (default 0; then next_offset)", 0)},
             {"limit", integer("Bytes per page (1-2097152, default 262144)", 1, 2097152)}},
            {"call_id", "file"}),
      output({{"call_id", prop("string", "The call")},
              {"name", prop("string", "The file")},
              {"offset", prop("integer", "This page's first byte")},
              {"size", prop("integer", "The file's size")},
              {"next_offset", prop("integer", "Where the next page starts")},
              {"eof", prop("boolean", "This page ends the file")},
              {"content", prop("string", "The page as text (UTF-8)")},
              {"content_base64", prop("string", "The page's bytes (binary)")}},
             {"name", "offset", "next_offset", "eof"})));
  tools.push_back(tool("functions_reply", "Answer a question a call asked (pending_inputs in functions_status).",
                       input({{"call_id", call_id},
                              {"request_id", prop("string", "The question's request_id (from pending_inputs)")},
                              {"answer", prop("string", "The answer to the question")}},
                             {"call_id", "request_id", "answer"}),
                       output({{"call_id", prop("string", "The call")},
                               {"request_id", prop("string", "The question")},
                               {"answered", prop("boolean", "The answer is stored")}},
                              {"call_id", "request_id", "answered"})));
  tools.push_back(tool("functions_cancel",
                       "Ask a running call to end: it ends cancelled; a call that already ended keeps its outcome.",
                       input({{"call_id", call_id}, {"wait_seconds", integer("Seconds to wait for the call's end (capped at 25)", 0)}}, {"call_id"}),
                       call_output(true)));
  return tools;
}

json messages_tools() {
  const json speak_as = prop("string", "Speak as this named agent of yours (optional)");
  const json submission = prop("string", "Optional id (1-200 printable ASCII) that makes a retried send safe");
  const json message = prop("string", "The message text (1-20,000 characters)");
  const json agent_name = prop("string", "The named agent");
  json tools = json::array();
  tools.push_back(tool(
      "messages_send",
      "Send a message to a named agent of this account (target agent:NAME), to a Crew's own agent (target "
      "crew:NAME), or into a conversation (inbox_id); exactly one of target and inbox_id. Answers a receipt, not an "
      "answer: answers arrive as new messages (messages_read).",
      input({{"target", prop("string", "\"agent:NAME\" (or NAME) of an agent, or \"crew:NAME\" of a Crew's own agent")},
             {"inbox_id", prop("string", "A conversation's inbox (inb_...) to continue it")},
             {"message", message},
             {"agent_name", speak_as},
             {"submission_id", submission}},
            {"message"}),
      receipt_output()));
  tools.push_back(tool(
      "messages_ask_crew",
      "Talk to a Crew's own agent (messages_send with target crew:NAME): it answers in that conversation when and if "
      "it chooses; read the receipt's inbox_id for the answer.",
      input({{"crew", prop("string", "The Crew's name")},
             {"message", message},
             {"agent_name", speak_as},
             {"submission_id", submission}},
            {"crew", "message"}),
      receipt_output()));
  tools.push_back(tool(
      "messages_read",
      "Read a page of messages: an agent's mailbox (agent_name), a conversation (inbox_id), or a conversation as "
      "one of your agents (both). Non-destructive; read on with after=next_cursor.",
      input({{"agent_name", prop("string", "Read this agent's mailbox (or read inbox_id as this agent)")},
             {"inbox_id", prop("string", "Read this conversation (inb_...)")},
             {"after", prop("string", "\"0\" (from the start) or the next_cursor of the previous page")},
             {"limit", integer("At most this many messages (1-100)", 1, 100)},
             {"wait_seconds", integer("Seconds to wait for a message when none is after the cursor (capped at 25)", 0)}},
            {}),
      output({{"messages", {{"type", "array"}, {"description", "The messages, oldest first"}}},
              {"next_cursor", typed({"string", "null"}, "`after` for the next page")}},
             {"messages"})));
  tools.push_back(tool("messages_receipt",
                       "A message's delivery receipt: stored, admitted or processed, and whether it was answered.",
                       input({{"message_id", prop("string", "The message (msg_...)")}}, {"message_id"}),
                       output({{"message_id", prop("string", "The message")},
                               {"delivery", {{"type", "object"}, {"description", "state, reply_state, admitted_at, "
                                                                                 "processed_at, via"}}}},
                              {"message_id", "delivery"})));
  tools.push_back(tool(
      "agents_state",
      "The owner's view of one agent: who receives for it, its conversations and their last deliveries, its "
      "wakeups; never a message's text.",
      input({{"agent_name", agent_name}, {"after", prop("string", "The next_after of the previous page")}},
            {"agent_name"}),
      output({{"agent_name", prop("string", "The agent")},
              {"receiving", typed({"object", "null"}, "The chat that receives for it now")},
              {"inboxes", {{"type", "array"}, {"description", "Its conversations, newest first"}}},
              {"wakeups", {{"type", "array"}, {"description", "Its pending and recent wakeups"}}},
              {"next_after", typed({"string", "null"}, "`after` for the next page")}},
             {"agent_name", "inboxes"})));
  tools.push_back(tool("agents_register", "Create or update a named agent of this account.",
                       input({{"agent_name", prop("string", "The name to register")},
                              {"purpose", prop("string", "What the agent is for, shown to other agents")},
                              {"provider", prop("string", "The agent's provider, e.g. claude, codex, cursor")}},
                             {"agent_name"}),
                       output({{"agent_id", prop("string", "The agent (agt_...)")},
                               {"agent_name", prop("string", "Its name")},
                               {"purpose", prop("string", "What it is for")},
                               {"connected", prop("boolean", "A chat receives for it now")}},
                              {"agent_id", "agent_name"})));
  tools.push_back(tool("agents_list", "The named agents of this account.", input(json::object(), {}),
                       output({{"agents", {{"type", "array"}, {"description", "agent_name, purpose, provider, "
                                                                              "connected, ..."}}}},
                              {"agents"})));
  tools.push_back(tool(
      "wakeups_schedule",
      "Prompt an agent's chat again later with a note: after_minutes or at (exactly one); wakeup_id moves a pending "
      "one instead of adding one.",
      input({{"agent_name", agent_name},
             {"after_minutes", integer("Minutes from now (1-43200)", 1, 43200)},
             {"at", prop("string", "An RFC 3339 time with a zone, at most 30 days ahead")},
             {"note", prop("string", "What the woken chat is to do (1-1,000 characters)")},
             {"wakeup_id", prop("string", "A pending wakeup (wku_...) to move")}},
            {"agent_name", "note"}),
      wakeup_output()));
  tools.push_back(tool("wakeups_cancel", "Cancel a pending wakeup of an agent.",
                       input({{"agent_name", agent_name}, {"wakeup_id", prop("string", "The wakeup (wku_...)")}},
                             {"agent_name", "wakeup_id"}),
                       wakeup_output()));
  tools.push_back(tool("wakeups_list", "An agent's wakeups, and whether the account's wakeups are paused.",
                       input({{"agent_name", agent_name}}, {"agent_name"}),
                       output({{"agent_name", prop("string", "The agent")},
                               {"paused", prop("boolean", "The account's wakeups are paused")},
                               {"wakeups", {{"type", "array"}, {"description", "Its wakeups"}}}},
                              {"wakeups"})));
  return tools;
}

json help_tool() {
  return tool("help",
              "How agentworks works: the two contracts (direct messages and structured functions) and how to follow "
              "a function call until its outcome.",
              input(json::object(), {}), output({{"context", prop("string", "The explanation")}}, {"context"}));
}

json text_result(const std::string& text, const json& structured, bool is_error) {
  return {{"content", json::array({{{"type", "text"}, {"text", text}}})},
          {"structuredContent", structured},
          {"isError", is_error}};
}

json error_result(const std::string& name, ErrorCode code, const std::string& message) {
  const std::string code_text(code_name(code));
  std::cerr << "agentworks mcp: " << name << " refused: " << message << " (" << code_text << ")" << std::endl;
  return text_result("error " + code_text + ": " + message,
                     {{"error", {{"code", code_text}, {"message", message}}}}, true);
}

}  // namespace

json full_tool_list() {
  json tools = functions_tools();
  for (json& t : messages_tools()) tools.push_back(std::move(t));
  tools.push_back(help_tool());
  return {{"tools", std::move(tools)}};
}

json call_full_tool(const std::string& name, const json& arguments, const LoginSource& login) {
  static const std::set<std::string> names = [] {
    std::set<std::string> out;
    const json list = full_tool_list();
    for (const json& t : list["tools"]) out.insert(t["name"].get<std::string>());
    return out;
  }();
  if (!names.contains(name)) {
    throw RpcError(rpc_invalid_params, "unknown tool '" + name + "'; tools/list names the tools");
  }
  try {
    ToolArgs args(name, arguments);
    std::string text;
    json structured;
    if (name.rfind("functions_", 0) == 0) {
      structured = run_functions_tool(name, args, login, text);
    } else if (name == "help") {
      args.only({});
      text = full_help_context();
      structured = {{"context", text}};
    } else {
      structured = run_messages_tool(name, args, login, text);
    }
    return text_result(text, structured, false);
  } catch (const Error& e) {
    return error_result(name, e.code(), e.what());
  } catch (const json::exception& e) {
    return error_result(name, ErrorCode::internal, std::string("unexpected answer from the server: ") + e.what());
  }
}

}  // namespace agentworks::cli::mcp
