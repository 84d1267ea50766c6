#include "mock_model/model_replies.hpp"

#include <nlohmann/json.hpp>

namespace agentworks::e2e {
namespace {

using nlohmann::json;

std::string event(const std::string& name, const json& data) {
  return "event: " + name + "\ndata: " + data.dump() + "\n\n";
}

}  // namespace

std::vector<std::string> anthropic_text_stream(const std::string& text, const std::string& message_id) {
  const json usage = {{"input_tokens", 10}, {"output_tokens", 1}, {"cache_creation_input_tokens", 0},
                      {"cache_read_input_tokens", 0}};
  return {
      event("message_start", {{"type", "message_start"},
                              {"message",
                               {{"id", message_id},
                                {"type", "message"},
                                {"role", "assistant"},
                                {"model", "claude-mock"},
                                {"content", json::array()},
                                {"stop_reason", nullptr},
                                {"stop_sequence", nullptr},
                                {"usage", usage}}}}),
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

}  // namespace agentworks::e2e
