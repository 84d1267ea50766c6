// The server's state machines as enums: conversations, messages, attachments and function calls. The code
// compares enums; the names below are the exact strings of the store's columns and of the wire (docs/protocol.md),
// so existing stores open unchanged and clients see the same JSON. Strings are converted only at those two
// boundaries: reading a column (an unknown value is a corrupt row, never a guess) and writing a column or a reply.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace agentworks::server {

// A conversation: open -> expired (idle past the limit, nothing left to deliver).
enum class ConversationState { open, expired };

// A message: stored -> admitted (a chat has it) -> processed (the agent acknowledged it).
enum class MessageState { stored, admitted, processed };

// An attachment: current -> detached (the person), fenced (another chat took the name) or revoked (its login
// connection was revoked). Only `current` receives.
enum class AttachmentState { current, fenced, detached, revoked };

// A function call: running <-> waiting_input, then completed, failed, cancelled (asked for, R-D3) or interrupted
// (a crash) (final). The open ones hold a running slot of their Crew.
enum class CallStatus { running, waiting_input, completed, failed, cancelled, interrupted };

std::string_view to_string(ConversationState state);
std::string_view to_string(MessageState state);
std::string_view to_string(AttachmentState state);
std::string_view to_string(CallStatus status);

// The text of a column or a reply; std::string for the places that concatenate.
template <typename State>
std::string state_text(State state) {
  return std::string(to_string(state));
}

std::optional<ConversationState> parse_conversation_state(std::string_view text);
std::optional<MessageState> parse_message_state(std::string_view text);
std::optional<AttachmentState> parse_attachment_state(std::string_view text);
std::optional<CallStatus> parse_call_status(std::string_view text);

// The state in a stored row: Error(internal) naming the column when the text names no state.
ConversationState conversation_state_column(std::string_view text);
MessageState message_state_column(std::string_view text);
AttachmentState attachment_state_column(std::string_view text);
CallStatus call_status_column(std::string_view text);

inline bool is_open(CallStatus status) { return status == CallStatus::running || status == CallStatus::waiting_input; }

}  // namespace agentworks::server
