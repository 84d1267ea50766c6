#include "hook_output.hpp"

#include <nlohmann/json.hpp>

namespace agentworks::hook {
namespace {

using nlohmann::json;

std::string line(const json& j) {
  // Invalid UTF-8 (never expected from the bridge) is replaced rather than thrown on.
  return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace

std::string continue_with(Provider provider, std::string_view text) {
  switch (provider) {
    case Provider::claude:
      // Claude Code shows a Stop block's reason as "Stop hook reported a problem" (and tells the model to follow
      // it as the person's standing instruction); additionalContext continues the turn just the same (2.1.197
      // and 2.1.332) and is shown as "Stop hook says: TEXT", given to the model as "Stop hook additional context".
      return line({{"hookSpecificOutput", {{"hookEventName", "Stop"}, {"additionalContext", text}}}});
    case Provider::codex:
    case Provider::pi:  // the extension continues the session with `reason` (plugins/pi/agentworks.ts)
      return line({{"decision", "block"}, {"reason", text}});
    case Provider::cursor:
      return line({{"followup_message", text}});
  }
  return {};
}

std::string block_prompt(Provider provider, std::string_view text) {
  switch (provider) {
    case Provider::claude:
      // Claude Code reads suppressOriginalPrompt inside hookSpecificOutput: the typed command is not echoed.
      return line({{"decision", "block"},
                   {"reason", text},
                   {"hookSpecificOutput", {{"hookEventName", "UserPromptSubmit"}, {"suppressOriginalPrompt", true}}}});
    case Provider::codex:
    case Provider::pi:  // the extension shows `reason` to the person; the model never sees the command
      return line({{"decision", "block"}, {"reason", text}});
    case Provider::cursor:
      return line({{"continue", false}, {"user_message", text}});
  }
  return {};
}

std::string tell_person(Provider, std::string_view text) { return line({{"systemMessage", text}}); }

}  // namespace agentworks::hook
