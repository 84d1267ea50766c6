// Contract limits and input rules shared by server, bridge and CLI (R-M3, R-M4, R-M10; docs/protocol.md).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace agentworks {

inline constexpr std::size_t kMaxAgentNameLength = 64;
inline constexpr std::size_t kMaxMessageChars = 20'000;   // Unicode code points
inline constexpr std::size_t kMaxNoReplyReasonChars = 500;  // a declining agent's own note (R-X2), never sent
inline constexpr int kMaxReadLimit = 100;
inline constexpr int kMaxWaitSeconds = 25;
inline constexpr std::size_t kMaxPurposeChars = 500;
inline constexpr std::size_t kMaxSubmissionIdLength = 200;
inline constexpr std::size_t kMaxRequestBodyBytes = 256 * 1024;

// R-M4: ASCII letters, digits, '.', '_', '-'; starts with a letter or digit; 1-64 characters.
bool valid_agent_name(std::string_view name);
// A message target: "agent:NAME" (an agent) or "crew:NAME" (a Crew's own agent, R-K1), NAME by the name rules.
bool valid_message_target(std::string_view target);

// Lower-case form used for case-insensitive comparison and storage keys.
std::string fold_name(std::string_view name);

// The length (1-4) of the valid UTF-8 code point that starts at text[i] (i < size), or 0 when none does: a stray
// or truncated byte, an overlong form, a surrogate or a value past U+10FFFF.
std::size_t utf8_sequence_length(std::string_view text, std::size_t i);

// Number of Unicode code points in valid UTF-8, or nullopt for invalid UTF-8.
std::optional<std::size_t> utf8_length(std::string_view text);

// R-M10: 1-20,000 code points of valid UTF-8 that are not all blank (see blank_text).
bool valid_message_text(std::string_view text);

// Valid UTF-8 holding only Unicode white space (spaces, tabs, line breaks, no-break and ideographic spaces, ...)
// or nothing at all: a message like that says nothing, so it is refused.
bool blank_text(std::string_view text);

// The rule as the errors state it (server, bridge, CLI and MCP tools say the same).
inline constexpr const char* kMessageRule =
    "message must be 1-20,000 Unicode characters of valid UTF-8, not only spaces or line breaks";

// What a person typed, made safe to show back in an error: control, bidirectional and zero-width characters
// become \u{XXXX}, invalid UTF-8 bytes become \xNN, and text over `max_chars` characters is cut with "...".
std::string echo_typed(std::string_view text, std::size_t max_chars = 64);

// Submission ids and other client-chosen ids: 1-200 printable ASCII characters.
bool valid_client_id(std::string_view id);

// The one rule for a submission id, as every refusal states it after the field's name (`submission_id` on the
// wire, `--submission-id` on the command line), and its one check: Error(bad_request) when `id` breaks it.
inline constexpr const char* kSubmissionIdRule = "must be 1-200 printable ASCII characters, without spaces";
void check_submission_id(std::string_view id, std::string_view field = "submission_id");

}  // namespace agentworks
