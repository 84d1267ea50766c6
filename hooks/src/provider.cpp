#include "provider.hpp"

#include <array>
#include <cctype>

namespace agentworks::hook {
namespace {

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

struct EventName {
  Provider provider;
  std::string_view name;
  Event event;
};

// The one table of what each provider calls its events.
constexpr std::array<EventName, 14> kEvents = {{
    {Provider::claude, "Stop", Event::stop},
    {Provider::claude, "UserPromptSubmit", Event::prompt_submit},
    {Provider::claude, "SessionStart", Event::session_start},
    {Provider::claude, "SessionEnd", Event::session_end},
    {Provider::codex, "Stop", Event::stop},
    {Provider::codex, "UserPromptSubmit", Event::prompt_submit},
    {Provider::codex, "SessionStart", Event::session_start},
    {Provider::codex, "SessionEnd", Event::session_end},
    {Provider::cursor, "stop", Event::stop},
    {Provider::cursor, "beforeSubmitPrompt", Event::prompt_submit},
    // Pi has no hooks: the agentworks extension runs this program at Pi's matching lifecycle events, with
    // Claude-shaped input (plugins/pi/agentworks.ts).
    {Provider::pi, "Stop", Event::stop},
    {Provider::pi, "UserPromptSubmit", Event::prompt_submit},
    {Provider::pi, "SessionStart", Event::session_start},
    {Provider::pi, "SessionEnd", Event::session_end},
}};

}  // namespace

std::optional<Event> parse_event(Provider provider, std::string_view name) {
  for (const auto& e : kEvents) {
    if (e.provider == provider && equals_ignoring_case(e.name, name)) return e.event;
  }
  return std::nullopt;
}

}  // namespace agentworks::hook
