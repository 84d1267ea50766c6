#include "mcp/elicitation.hpp"

#include <iostream>

#include "agentworks/error.hpp"
#include "functions/routes.hpp"
#include "session.hpp"

namespace agentworks::cli::mcp {
using nlohmann::json;
namespace {

void log_elicitation(const std::string& text) { std::cerr << "agentworks mcp --full: " << text << std::endl; }

bool primitive_property(const json& p) {
  if (!p.is_object() || !p.contains("type") || !p["type"].is_string()) return false;
  const std::string type = p["type"].get<std::string>();
  return type == "string" || type == "number" || type == "integer" || type == "boolean";
}

json answer_field() {
  return {{"type", "object"},
          {"properties", {{"answer", {{"type", "string"}, {"title", "Answer"}}}}},
          {"required", json::array({"answer"})}};
}

}  // namespace

json requested_schema(const json& schema, bool& own) {
  own = false;
  if (!schema.is_object() || schema.value("type", json()) != "object" || !schema.contains("properties") ||
      !schema["properties"].is_object() || schema["properties"].empty())
    return answer_field();
  json out = {{"type", "object"}, {"properties", json::object()}};
  for (const auto& [name, p] : schema["properties"].items()) {
    if (!primitive_property(p)) return answer_field();
    out["properties"][name] = p;
  }
  if (schema.contains("required") && schema["required"].is_array()) out["required"] = schema["required"];
  own = true;
  return out;
}

void Elicitations::set_client_capabilities(const json& params) {
  const json caps = params.contains("capabilities") && params["capabilities"].is_object() ? params["capabilities"]
                                                                                           : json::object();
  if (!caps.contains("elicitation") || !caps["elicitation"].is_object()) return;
  const json& e = caps["elicitation"];
  // An empty object means form mode; a client that lists modes must list form.
  enabled_ = e.empty() || e.contains("form");
}

void Elicitations::offer(const json& tool_result) {
  if (!enabled_ || tool_result.value("isError", false) || !tool_result.contains("structuredContent")) return;
  const json& call = tool_result["structuredContent"];
  if (!call.is_object() || call.value("status", "") != "waiting_input" || !call.contains("pending_inputs")) return;
  const std::string call_id = call.value("call_id", "");
  for (const auto& in : call["pending_inputs"]) {
    const std::string request_id = in.value("request_id", "");
    if (call_id.empty() || request_id.empty() || !asked_requests_.insert(request_id).second) continue;
    Asked asked{call_id, request_id, false};
    const json schema = requested_schema(in.contains("schema") ? in["schema"] : json(), asked.whole_content);
    const std::string id = "agentworks-elicit-" + std::to_string(++next_id_);
    in_flight_[id] = asked;
    writer_.write(rpc_request(id, "elicitation/create",
                              {{"mode", "form"}, {"message", in.value("question", "")}, {"requestedSchema", schema}}));
  }
}

bool Elicitations::on_response(const json& response) {
  if (!response.contains("id") || !response["id"].is_string()) return false;
  const auto it = in_flight_.find(response["id"].get<std::string>());
  if (it == in_flight_.end()) return false;
  const Asked asked = it->second;
  in_flight_.erase(it);
  if (!response.contains("result") || !response["result"].is_object()) {
    log_elicitation("the client refused the elicitation for " + asked.request_id + "; it stays pending");
    return true;
  }
  const json& result = response["result"];
  if (result.value("action", "") != "accept" || !result.contains("content") || !result["content"].is_object()) {
    log_elicitation("the question " + asked.request_id + " was not answered in the elicitation; it stays pending");
    return true;
  }
  const json& content = result["content"];
  const std::string answer = elicited_answer(content, asked.whole_content);
  try {
    const Config config = login_();
    client_for(config).post(functions::call_path(asked.call_id) + "/replies",
                            {{"request_id", asked.request_id}, {"answer", answer}});
    log_elicitation("answered " + asked.request_id + " from the elicitation");
  } catch (const Error& e) {
    log_elicitation("the elicitation's answer to " + asked.request_id + " was refused: " + e.what());
  }
  return true;
}

std::string elicited_answer(const json& content, bool whole_content) {
  if (!whole_content && content.contains("answer") && content["answer"].is_string())
    return content["answer"].get<std::string>();
  return content.dump();
}

}  // namespace agentworks::cli::mcp
