// The message, agent and wakeup tools of `mcp serve --full`: the server's routes as the person's login
// (messages_send and messages_ask_crew → POST /v1/messages, messages_read → GET /v1/messages, messages_receipt →
// GET /v1/messages/{id}/receipt, agents_state → GET /v1/agents/{name}/state, agents_register → POST /v1/agents,
// agents_list → GET /v1/agents, wakeups_schedule|wakeups_cancel|wakeups_list → /v1/agents/{name}/wakeups), with the
// same client-side checks as the `messages …`, `crews ask` and `wakeups …` commands.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "agentworks/validation.hpp"
#include "checks.hpp"
#include "mcp/full_actions.hpp"
#include "mcp/tool_args.hpp"
#include "session.hpp"

namespace agentworks::cli::mcp {
using nlohmann::json;
namespace {

std::string query_add(std::string query, const char* key, const std::string& value) {
  return query + (query.empty() ? "?" : "&") + key + "=" + url_encode(value);
}

// The answer as indented JSON under a one-line headline.
json as_json(const json& answer, const std::string& headline, std::string& text) {
  text = headline + "\n" + answer.dump(2);
  return answer;
}

}  // namespace

json run_messages_tool(const std::string& tool, ToolArgs& args, const LoginSource& login, std::string& text) {
  if (tool == "messages_send" || tool == "messages_ask_crew") {
    json body;
    if (tool == "messages_ask_crew") {  // R-K1: the Crew's own agent, as target crew:NAME
      args.only({"agent_name", "crew", "message", "submission_id"});
      const std::string crew = args.string("crew");
      check_crew_name(crew);
      body["target"] = "crew:" + crew;
    } else {
      args.only({"agent_name", "target", "inbox_id", "message", "submission_id"});
      const auto target = args.opt_string("target");
      const auto inbox = args.opt_string("inbox_id");
      if (target.has_value() == inbox.has_value()) {
        throw Error(ErrorCode::bad_request,
                    "messages_send: give exactly one of 'target' (agent:NAME or crew:NAME) or 'inbox_id'");
      }
      if (target) {
        body["target"] = message_target(*target);
      } else {
        body["inbox_id"] = *inbox;
      }
    }
    if (auto agent = args.opt_string("agent_name")) {
      check_agent_name(*agent);
      body["agent_name"] = *agent;
    }
    if (auto id = args.opt_string("submission_id")) {
      check_submission_id(*id, tool + ": 'submission_id'");
      body["submission_id"] = *id;
    }
    const std::string message = args.string("message");
    check_message_text(message);
    body["message"] = message;
    const Config config = login();
    const json receipt = client_for(config).post("/v1/messages", body);
    if (tool == "messages_ask_crew")
      return as_json(receipt,
                     "sent to the Crew's agent: this is a receipt, not an answer; it answers in the conversation when "
                     "and if it chooses (messages_read inbox_id=" + string_field(receipt, "inbox_id") + ")",
                     text);
    return as_json(receipt, "sent: this is a receipt, not an answer; answers arrive as new messages (messages_read)",
                   text);
  }
  if (tool == "messages_read") {
    args.only({"agent_name", "inbox_id", "after", "limit", "wait_seconds"});
    const auto agent = args.opt_string("agent_name");
    const auto inbox = args.opt_string("inbox_id");
    if (!agent && !inbox)
      throw Error(ErrorCode::bad_request, "messages_read: give 'agent_name' and/or 'inbox_id'");
    std::string query;
    if (inbox) query = query_add(query, "inbox_id", *inbox);
    if (agent) {
      check_agent_name(*agent);
      query = query_add(query, "agent_name", *agent);
    }
    query = query_add(query, "after", args.opt_string("after").value_or("0"));
    if (auto limit = args.opt_integer("limit")) {
      if (*limit < 1 || *limit > kMaxReadLimit) throw Error(ErrorCode::bad_request, "messages_read: 'limit' must be 1-100");
      query = query_add(query, "limit", std::to_string(*limit));
    }
    const auto wait_arg = args.opt_integer("wait_seconds").value_or(0);
    if (wait_arg < 0) throw Error(ErrorCode::bad_request, "messages_read: 'wait_seconds' must be 0 or more");
    const int wait = static_cast<int>(std::min<long long>(wait_arg, kMaxWaitSeconds));
    if (wait > 0) query = query_add(query, "wait_seconds", std::to_string(wait));
    const Config config = login();
    const json page = client_for(config).get("/v1/messages" + query, wait);
    return as_json(
        page,
        std::to_string(page.value("messages", json::array()).size()) + " messages; read on with after=next_cursor",
        text);
  }
  if (tool == "messages_receipt") {
    args.only({"message_id"});
    const std::string message_id = args.string("message_id");
    const Config config = login();
    return as_json(client_for(config).get("/v1/messages/" + url_encode(message_id) + "/receipt"),
                   "receipt of " + message_id, text);
  }
  if (tool == "agents_state") {
    args.only({"agent_name", "after"});
    const std::string agent = args.string("agent_name");
    check_agent_name(agent);
    std::string path = "/v1/agents/" + url_encode(agent) + "/state";
    if (const auto after = args.opt_string("after")) path += "?after=" + url_encode(*after);
    const Config config = login();
    return as_json(client_for(config).get(path), "state of agent:" + agent, text);
  }
  if (tool == "agents_register") {
    args.only({"agent_name", "purpose", "provider"});
    const std::string name = args.string("agent_name");
    check_agent_name(name);
    json body = {{"agent_name", name}};
    if (auto purpose = args.opt_string("purpose")) body["purpose"] = *purpose;
    if (auto provider = args.opt_string("provider")) body["provider"] = *provider;
    const Config config = login();
    return as_json(client_for(config).post("/v1/agents", body), "registered " + name, text);
  }
  if (tool.rfind("wakeups_", 0) == 0) {  // R-W1: the person's side of an agent's wakeups
    if (tool == "wakeups_schedule") args.only({"agent_name", "after_minutes", "at", "note", "wakeup_id"});
    if (tool == "wakeups_cancel") args.only({"agent_name", "wakeup_id"});
    if (tool == "wakeups_list") args.only({"agent_name"});
    const std::string agent = args.string("agent_name");
    check_agent_name(agent);
    const std::string path = "/v1/agents/" + url_encode(agent) + "/wakeups";
    const Config config = login();
    if (tool == "wakeups_list") return as_json(client_for(config).get(path), "wakeups of agent:" + agent, text);
    if (tool == "wakeups_cancel")
      return as_json(client_for(config).post(path + "/" + url_encode(args.string("wakeup_id")) + "/cancel",
                                             json::object()),
                     "cancelled", text);
    json body = {{"note", args.string("note")}};
    if (auto minutes = args.opt_integer("after_minutes")) body["after_minutes"] = *minutes;
    if (auto at = args.opt_string("at")) body["at"] = *at;
    if (auto id = args.opt_string("wakeup_id")) body["wakeup_id"] = *id;
    return as_json(client_for(config).post(path, body), "scheduled: it prompts agent:" + agent + "'s chat when due",
                   text);
  }
  if (tool != "agents_list") throw Error(ErrorCode::internal, "no messages tool " + tool);
  args.only({});
  const Config config = login();
  return as_json(client_for(config).get("/v1/agents"), "the named agents of this account", text);
}

}  // namespace agentworks::cli::mcp
