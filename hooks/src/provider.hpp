// The providers (agent CLIs) the hook serves and the events it handles for each.
#pragma once

#include <optional>
#include <string_view>

namespace agentworks::hook {

enum class Provider { claude, codex, cursor };
enum class Event { stop, prompt_submit, session_start, session_end };

// "claude", "codex", "cursor" (exact, lower case); nullopt otherwise.
std::optional<Provider> parse_provider(std::string_view name);
// The provider's name on the bridge protocol ("claude", "codex", "cursor").
std::string_view provider_name(Provider provider);
// The provider's own event name (case-insensitive): Claude and Codex Stop, UserPromptSubmit, SessionStart,
// SessionEnd; Cursor stop, beforeSubmitPrompt. nullopt for any other pair: the hook then does nothing.
std::optional<Event> parse_event(Provider provider, std::string_view name);

}  // namespace agentworks::hook
