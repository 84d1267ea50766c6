#include "mock_model/model_replies.hpp"

#include <nlohmann/json.hpp>

namespace agentworks::e2e {
namespace {

using nlohmann::json;

std::string event(const std::string& name, const json& data) {
  return "event: " + name + "\ndata: " + data.dump() + "\n\n";
}

json anthropic_message_start(const std::string& message_id) {
  const json usage = {{"input_tokens", 10}, {"output_tokens", 1}, {"cache_creation_input_tokens", 0},
                      {"cache_read_input_tokens", 0}};
  return {{"type", "message_start"},
          {"message",
           {{"id", message_id},
            {"type", "message"},
            {"role", "assistant"},
            {"model", "claude-mock"},
            {"content", json::array()},
            {"stop_reason", nullptr},
            {"stop_sequence", nullptr},
            {"usage", usage}}}};
}

json responses_completed(const std::string& response_id) {
  return {{"type", "response.completed"},
          {"response",
           {{"id", response_id},
            {"usage",
             {{"input_tokens", 10}, {"input_tokens_details", nullptr}, {"output_tokens", 5},
              {"output_tokens_details", nullptr}, {"total_tokens", 15}}}}}};
}

}  // namespace

std::vector<std::string> anthropic_tool_use_stream(const std::string& tool, const std::string& arguments_json,
                                                   const std::string& tool_use_id, const std::string& message_id) {
  return {
      event("message_start", anthropic_message_start(message_id)),
      event("content_block_start",
            {{"type", "content_block_start"},
             {"index", 0},
             {"content_block", {{"type", "tool_use"}, {"id", tool_use_id}, {"name", tool}, {"input", json::object()}}}}),
      event("content_block_delta",
            {{"type", "content_block_delta"},
             {"index", 0},
             {"delta", {{"type", "input_json_delta"}, {"partial_json", arguments_json}}}}),
      event("content_block_stop", {{"type", "content_block_stop"}, {"index", 0}}),
      event("message_delta", {{"type", "message_delta"},
                              {"delta", {{"stop_reason", "tool_use"}, {"stop_sequence", nullptr}}},
                              {"usage", {{"output_tokens", 5}}}}),
      event("message_stop", {{"type", "message_stop"}}),
  };
}

std::vector<std::string> responses_function_call_stream(const std::string& tool, const std::string& tool_namespace,
                                                        const std::string& arguments_json, const std::string& call_id,
                                                        const std::string& response_id) {
  json item = {{"type", "function_call"}, {"id", "fc_" + response_id}, {"name", tool}, {"arguments", arguments_json},
               {"call_id", call_id}, {"status", "in_progress"}};
  if (!tool_namespace.empty()) item["namespace"] = tool_namespace;
  json done = item;
  done["status"] = "completed";
  return {
      event("response.created", {{"type", "response.created"}, {"response", {{"id", response_id}}}}),
      event("response.output_item.added", {{"type", "response.output_item.added"}, {"output_index", 0}, {"item", item}}),
      event("response.output_item.done", {{"type", "response.output_item.done"}, {"output_index", 0}, {"item", done}}),
      event("response.completed", responses_completed(response_id)),
  };
}

std::vector<std::string> anthropic_text_stream(const std::string& text, const std::string& message_id) {
  return {
      event("message_start", anthropic_message_start(message_id)),
      event("content_block_start",
            {{"type", "content_block_start"}, {"index", 0}, {"content_block", {{"type", "text"}, {"text", ""}}}}),
      event("content_block_delta",
            {{"type", "content_block_delta"}, {"index", 0}, {"delta", {{"type", "text_delta"}, {"text", text}}}}),
      event("content_block_stop", {{"type", "content_block_stop"}, {"index", 0}}),
      event("message_delta", {{"type", "message_delta"},
                              {"delta", {{"stop_reason", "end_turn"}, {"stop_sequence", nullptr}}},
                              {"usage", {{"output_tokens", 5}}}}),
      event("message_stop", {{"type", "message_stop"}}),
  };
}

std::string anthropic_text_message(const std::string& text, const std::string& message_id) {
  return json{{"id", message_id},
              {"type", "message"},
              {"role", "assistant"},
              {"model", "claude-mock"},
              {"content", json::array({{{"type", "text"}, {"text", text}}})},
              {"stop_reason", "end_turn"},
              {"stop_sequence", nullptr},
              {"usage", {{"input_tokens", 10}, {"output_tokens", 5}}}}
      .dump();
}

std::vector<std::string> responses_text_stream(const std::string& text, const std::string& response_id) {
  const std::string item_id = "msg_" + response_id;
  const json done_item = {{"type", "message"},
                          {"id", item_id},
                          {"role", "assistant"},
                          {"status", "completed"},
                          {"content", json::array({{{"type", "output_text"}, {"text", text}, {"annotations", json::array()}}})}};
  return {
      event("response.created", {{"type", "response.created"}, {"response", {{"id", response_id}}}}),
      event("response.output_item.added",
            {{"type", "response.output_item.added"},
             {"output_index", 0},
             {"item",
              {{"type", "message"}, {"id", item_id}, {"role", "assistant"}, {"status", "in_progress"},
               {"content", json::array()}}}}),
      event("response.output_text.delta", {{"type", "response.output_text.delta"},
                                           {"item_id", item_id},
                                           {"output_index", 0},
                                           {"content_index", 0},
                                           {"delta", text}}),
      event("response.output_item.done", {{"type", "response.output_item.done"}, {"output_index", 0}, {"item", done_item}}),
      event("response.completed",
            {{"type", "response.completed"},
             {"response",
              {{"id", response_id},
               {"usage",
                {{"input_tokens", 10}, {"input_tokens_details", nullptr}, {"output_tokens", 5},
                 {"output_tokens_details", nullptr}, {"total_tokens", 15}}}}}}),
  };
}

std::string api_error_body(const std::string& api, const std::string& type, const std::string& message) {
  if (api == "anthropic") return json{{"type", "error"}, {"error", {{"type", type}, {"message", message}}}}.dump();
  return json{{"error", {{"type", type}, {"message", message}, {"code", type}, {"param", nullptr}}}}.dump();
}

}  // namespace agentworks::e2e
