// The exact answer shapes the real CLIs accept from a model API (verified against Claude Code 2.1.332 and
// Codex 0.171.0; docs/e2e.md lists them): the Anthropic Messages stream and JSON message, and the OpenAI
// Responses stream. Each function returns whole SSE events ("event: X\ndata: {...}\n\n").
#pragma once

#include <string>
#include <vector>

namespace agentworks::e2e {

// Messages API stream for one assistant text answer: message_start, content_block_start, content_block_delta
// (text_delta), content_block_stop, message_delta (stop_reason end_turn), message_stop.
std::vector<std::string> anthropic_text_stream(const std::string& text, const std::string& message_id);
// The same answer as a non-streamed JSON message (for requests with "stream": false).
std::string anthropic_text_message(const std::string& text, const std::string& message_id);

// Responses API stream: response.created, response.output_item.added, response.output_text.delta,
// response.output_item.done, response.completed.
std::vector<std::string> responses_text_stream(const std::string& text, const std::string& response_id);

// Messages API stream for one tool call: message_start, content_block_start (tool_use, empty input),
// content_block_delta (input_json_delta with the whole arguments JSON), content_block_stop, message_delta
// (stop_reason tool_use), message_stop.
std::vector<std::string> anthropic_tool_use_stream(const std::string& tool, const std::string& arguments_json,
                                                   const std::string& tool_use_id, const std::string& message_id);

// Responses API stream for one function call: response.created, response.output_item.added and
// response.output_item.done with {"type":"function_call","name","arguments":"<json text>","call_id"} (plus
// "namespace" when the tool was offered inside a namespace tool, as Codex 0.171.0 offers MCP tools),
// response.completed.
std::vector<std::string> responses_function_call_stream(const std::string& tool, const std::string& tool_namespace,
                                                        const std::string& arguments_json, const std::string& call_id,
                                                        const std::string& response_id);

// An API error answer's JSON body: Anthropic {"type":"error","error":{"type","message"}}, Responses
// {"error":{"type","message","code"}} (`api` is "anthropic" or "responses").
std::string api_error_body(const std::string& api, const std::string& type, const std::string& message);

}  // namespace agentworks::e2e
