// What the hook prints, in each provider's own output format (docs/hooks.md; checked against
// Claude Code 2.1.197 and Codex 0.171.0, whose output schemas reject unknown fields). Each function returns one
// JSON line ending in "\n".
#pragma once

#include <string>
#include <string_view>

#include "provider.hpp"

namespace agentworks::hook {

// Stop: `text` becomes the chat's next message. Claude
// {"hookSpecificOutput":{"hookEventName":"Stop","additionalContext":TEXT}} (not alarming in its TUI); Codex
// {"decision":"block","reason":TEXT}; Cursor {"followup_message":TEXT}.
std::string continue_with(Provider provider, std::string_view text);

// Prompt submit: the prompt is stopped before the model and `text` is shown to the person.
// Claude {"decision":"block","reason":TEXT,"hookSpecificOutput":{"hookEventName":"UserPromptSubmit",
// "suppressOriginalPrompt":true}}; Codex {"decision":"block","reason":TEXT}; Cursor
// {"continue":false,"user_message":TEXT}.
std::string block_prompt(Provider provider, std::string_view text);

// SessionStart: a line shown to the person (not to the model). Claude and Codex {"systemMessage":TEXT}.
std::string tell_person(Provider provider, std::string_view text);

}  // namespace agentworks::hook
