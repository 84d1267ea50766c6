#include "agent/agent_prompt.hpp"

namespace agentworks::functions {

std::string agent_prompt(const PromptContext& c) {
  std::string p = c.task;
  p += "\n\n---\nHow agentworks runs this task (function " + c.function + ", call " + c.call_id + "):\n";
  p += "- You run without a person watching: nobody reads questions asked in chat, and there is no interactive "
       "question tool. If you need information from the caller, call the `request_input` tool of the `agentworks` "
       "MCP server (mcp__agentworks__request_input) and wait for its answer.\n";
  if (c.output_schema_json) {
    p += "- Write your result as one JSON value to the file " + c.result_file +
         " (also in the environment variable FUNCTION_RESULT_FILE), for example with your shell or file-writing "
         "tool. It must be valid against this JSON Schema:\n" + *c.output_schema_json +
         "\n  It is checked after you finish. If you cannot write files, make your final message exactly that JSON.\n";
  }
  p += "- Files for the caller go in " + c.output_dir + " (FUNCTION_OUTPUT_DIR).\n";
  if (!c.explicit_communication) {
    p += "- Your final message is the answer the caller reads: end with a short summary of what you did and found.\n";
    return p;
  }
  p += "\nHow you talk:\n"
       "- The caller reads only what you send with the `send_message` tool of the `agentworks` MCP server "
       "(mcp__agentworks__send_message): your other text is your own notes, recorded as commentary, never sent.\n"
       "- Send your answer with send_message; if you send several, the last one is the answer.\n"
       "- If the task needs no answer from you, call `no_reply` (mcp__agentworks__no_reply) with a short reason "
       "instead. Ending with neither looks like a lost answer.\n";
  return p;
}

std::string silent_turn_prompt(const PromptContext& c) {
  return "agentworks: your turn ended without send_message or no_reply, so the caller of function " + c.function +
         " (call " + c.call_id + ") has received nothing. Send your answer now with the send_message tool, or call "
         "no_reply with a short reason if there is nothing to say. This is the only reminder.";
}

std::string correction_prompt(const PromptContext& c, const std::string& problem) {
  return "agentworks checked your result and it is not valid: " + problem + "\n\nWrite a corrected result to " +
         c.result_file + " (valid against the JSON Schema given before), then end with your final answer. This is "
         "the only correction turn.";
}

}  // namespace agentworks::functions
