// The providers (agent CLIs) the hook serves and the events it handles for each.
#pragma once

#include <optional>
#include <string_view>

#include "agentworks/providers.hpp"

namespace agentworks::hook {

using ::agentworks::Provider;
enum class Event { stop, prompt_submit, session_start, session_end };

// The hook's first argument: a provider's exact name (agentworks/providers.hpp); nullopt otherwise.
constexpr std::optional<Provider> parse_provider(std::string_view name) { return provider_from_name(name); }
// The provider's own event name (case-insensitive): Claude and Codex Stop, UserPromptSubmit, SessionStart,
// SessionEnd; Cursor stop, beforeSubmitPrompt. nullopt for any other pair: the hook then does nothing.
std::optional<Event> parse_event(Provider provider, std::string_view name);

}  // namespace agentworks::hook
