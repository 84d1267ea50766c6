// The event JSON a provider writes on the hook's stdin: read with a size and time bound, then reduced to the
// few fields the hook uses. Anything malformed yields nullopt and the hook prints nothing (never breaks a chat).
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "provider.hpp"

namespace agentworks::hook {

inline constexpr std::size_t kMaxInputBytes = 4u * 1024 * 1024;  // a long last_assistant_message still fits

struct HookInput {
  std::string session_id;             // Claude/Codex session_id, Cursor conversation_id; empty when absent/invalid
  std::string cwd;                    // Claude/Codex cwd, Cursor workspace_roots[0]; empty when absent
  std::optional<std::string> prompt;  // UserPromptSubmit / beforeSubmitPrompt
  bool stop_hook_active = false;      // Claude/Codex Stop
  std::string last_assistant_message; // Claude/Codex Stop: the turn's final text (R-X5)
  std::optional<long long> loop_count;  // Cursor stop
  std::string status;                 // Cursor stop: completed | aborted | error
  std::string source;                 // SessionStart: startup | resume | clear | compact
};

// Reads all of `fd` until EOF. nullopt when it holds more than `max_bytes`, a read fails, or EOF does not come
// before `timeout` (a provider always closes stdin; a terminal never does).
std::optional<std::string> read_all_bounded(int fd, std::size_t max_bytes = kMaxInputBytes,
                                            std::chrono::milliseconds timeout = std::chrono::seconds(10));

// Parses the event JSON. nullopt when it is not a JSON object. Fields of a wrong type are treated as absent.
std::optional<HookInput> parse_hook_input(std::string_view text, Provider provider);

// The bridge's session id rule: 1-200 printable ASCII characters.
bool valid_session_id(std::string_view id);

}  // namespace agentworks::hook
