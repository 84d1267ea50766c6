#include "mcp/full_actions.hpp"

#include <iostream>

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

json actions(std::initializer_list<const char*> names, const std::string& description) {
  json list = json::array();
  for (const char* n : names) list.push_back(n);
  return {{"type", "string"}, {"enum", list}, {"description", description}};
}

json tool(const char* name, const std::string& description, json properties) {
  return {{"name", name},
          {"description", description},
          {"inputSchema",
           {{"type", "object"},
            {"properties", std::move(properties)},
            {"required", json::array({"action"})},
            {"additionalProperties", false}}}};
}

json functions_tool() {
  return tool(
      "functions",
      "Call a Crew's declared functions and follow the calls. action=list (target) lists the functions you may "
      "call; call (target, function, arguments, submission_id?, wait_seconds?) starts one and answers its call_id "
      "and status; status (call_id, after?, message_limit?, after_event?, wait_seconds?) reads it; read (call_id, "
      "file, offset?, limit?) reads an output file page; reply (call_id, request_id, answer) answers a question "
      "the call asked; cancel (call_id, wait_seconds?) asks a running call to end. Only status completed, failed, "
      "cancelled or interrupted is an outcome: keep polling status with wait_seconds=25 and the next_after / "
      "next_after_event you last saw until then.",
      {{"action", actions({"list", "call", "status", "read", "reply", "cancel"}, "What to do")},
       {"target", prop("string", "The Crew: its name (yours) or crew_id (crw_..., another account's). list, call")},
       {"function", prop("string", "The function's name (see action=list). call")},
       {"arguments", {{"type", "object"}, {"description", "The function's arguments, checked against its inputs "
                                                          "schema before anything starts. call"}}},
       {"submission_id", prop("string", "Optional id (1-200 printable ASCII) that makes a retried call safe: a "
                                        "repeat answers the call already accepted. call")},
       {"wait_seconds", integer("Seconds to wait (capped at 25): call waits for an outcome, status for the next "
                                "message or event, cancel for the call's end. call, status, cancel", 0)},
       {"call_id", prop("string", "The call (call_...). status, read, reply, cancel")},
       {"after", integer("Messages after this seq (-1 from the start; then next_after). status", -1)},
       {"message_limit", integer("At most this many messages (1-500, default 100). status", 1, 500)},
       {"after_event", integer("Events after this seq (-1 from the start; then next_after_event). status", -1)},
       {"file", prop("string", "The file's name relative to the call's folder (see files in status). read")},
       {"offset", integer("Byte offset (default 0; then next_offset). read", 0)},
       {"limit", integer("Bytes per page (1-2097152, default 262144). read", 1, 2097152)},
       {"request_id", prop("string", "The question's request_id (from pending_inputs). reply")},
       {"answer", prop("string", "The answer to the question. reply")}});
}

json messages_tool() {
  return tool(
      "messages",
      "Direct messages between named agents of this account, and to a Crew's own agent, as your login. action=send "
      "(target agent:NAME or crew:NAME, or inbox_id; message, agent_name? to speak as, submission_id?) answers a "
      "receipt, not an answer: answers arrive as new messages; ask_crew (crew, message, agent_name?, "
      "submission_id?) is send with target crew:NAME: the Crew's agent answers in that conversation when and if it "
      "chooses; read (agent_name for a mailbox and/or inbox_id, after?, limit?, wait_seconds?) "
      "reads a page; state (message_id) shows a message's delivery receipt, or (agent_name, after?) the agent's "
      "inboxes and their last deliveries, without bodies; register (agent_name, purpose?, "
      "provider?) creates or updates a named agent; list_agents lists them; wakeup_schedule (agent_name, "
      "after_minutes or at, note, wakeup_id? to move one) prompts that agent's chat again later, wakeup_cancel "
      "(agent_name, wakeup_id) and wakeup_list (agent_name) manage them.",
      {{"action", actions({"send", "ask_crew", "read", "state", "register", "list_agents", "wakeup_schedule",
                           "wakeup_cancel", "wakeup_list"},
                          "What to do")},
       {"agent_name", prop("string", "A named agent: speak as it (send, ask_crew), read its mailbox (read), its "
                                     "inboxes (state), or the name to register (register)")},
       {"target", prop("string", "\"agent:NAME\" (or NAME) of an agent, or \"crew:NAME\" of a Crew's own agent, "
                                 "to start or continue a conversation. send")},
       {"crew", prop("string", "The Crew whose own agent you talk to (its name). ask_crew")},
       {"inbox_id", prop("string", "A conversation inbox (inb_...): send into it, or read it. send, read")},
       {"message", prop("string", "The message text (1-20,000 characters). send, ask_crew")},
       {"submission_id", prop("string", "Optional id (1-200 printable ASCII) that makes a retried send safe. send, "
                                        "ask_crew")},
       {"after", prop("string", "Cursor to read after: \"0\" (from the start) or a previous next_cursor (read); "
                                "a previous next_after (state of an agent)")},
       {"limit", integer("At most this many messages (1-100). read", 1, 100)},
       {"wait_seconds", integer("Seconds to wait for a message when none is after the cursor (capped at 25). read",
                                0)},
       {"message_id", prop("string", "The message (msg_...). state")},
       {"purpose", prop("string", "What the agent is for, shown to other agents. register")},
       {"provider", prop("string", "The agent's provider, e.g. claude, codex, cursor. register")},
       {"after_minutes", integer("Minutes from now (1-43200). wakeup_schedule", 1, 43200)},
       {"at", prop("string", "An RFC 3339 time with a zone, at most 30 days ahead. wakeup_schedule")},
       {"note", prop("string", "What the woken chat is to do (1-1,000 characters). wakeup_schedule")},
       {"wakeup_id", prop("string", "A wakeup (wku_...). wakeup_schedule (to move it), wakeup_cancel")}});
}

json help_tool() {
  return tool("help",
              "How agentworks works: the two contracts (direct messages and structured functions) and how to follow "
              "a function call until its outcome. action=context.",
              {{"action", actions({"context"}, "context: the explanation")}});
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

json full_tool_list() { return {{"tools", json::array({functions_tool(), messages_tool(), help_tool()})}}; }

json call_full_tool(const std::string& name, const json& arguments, const LoginSource& login) {
  if (name != "functions" && name != "messages" && name != "help") {
    throw RpcError(rpc_invalid_params, "unknown tool '" + name + "'; tools/list names the tools");
  }
  try {
    ToolArgs args(name, arguments);
    std::string text;
    json structured;
    if (name == "functions") {
      structured = run_functions_action(args, login, text);
    } else if (name == "messages") {
      structured = run_messages_action(args, login, text);
    } else {
      args.action({"context"});
      args.only({});
      text = full_help_context();
      structured = {{"context", text}};
    }
    return text_result(text, structured, false);
  } catch (const Error& e) {
    return error_result(name, e.code(), e.what());
  } catch (const json::exception& e) {
    return error_result(name, ErrorCode::internal, std::string("unexpected answer from the server: ") + e.what());
  }
}

}  // namespace agentworks::cli::mcp
