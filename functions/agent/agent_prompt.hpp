// What an agent execution is told besides its task: agentworks adds the output contract (where the result goes,
// its schema, that the final message is the answer) and how to ask the caller, so a Crew author writes only the
// task. Also the text of the one correction turn.
#pragma once

#include <optional>
#include <string>

namespace agentworks::functions {

struct PromptContext {
  std::string function;
  std::string call_id;
  std::string task;                               // the rendered prompt template
  std::string output_dir;                         // FUNCTION_OUTPUT_DIR
  std::string result_file;                        // FUNCTION_RESULT_FILE
  std::optional<std::string> output_schema_json;  // absent: the final message is the whole answer
  bool explicit_communication = false;            // R-X7: the answer is what send_message sent
};

std::string agent_prompt(const PromptContext& c);
std::string correction_prompt(const PromptContext& c, const std::string& problem);
// R-X7: the one nudge of an explicit function whose turn ended with neither send_message nor no_reply.
std::string silent_turn_prompt(const PromptContext& c);

}  // namespace agentworks::functions
