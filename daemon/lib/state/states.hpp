// The journal's state machines as enums (docs/requirements.md invariants 1, 2, 10). The code compares enums; the
// names below are the exact strings of the journal's state columns and of the bridge's wire answers, so existing
// journals open unchanged and clients see the same JSON. Strings are converted only at those two boundaries.
#pragma once

#include <optional>
#include <string_view>

namespace agentworks::bridge {

// An attachment: attached (its stream runs) -> offline (the chat went away; resumable) or fenced (another chat
// took the name; final).
enum class AttachmentState { attached, offline, fenced };

// A journaled message: received (pending, body cached) -> offered -> admitted -> processed; withheld when the
// server's release check refused it.
enum class MessageState { received, offered, admitted, processed, withheld };

// A durable outbox item: queued until the server answered, then done or failed.
enum class OutboxState { queued, done, failed };

std::string_view to_string(AttachmentState state);
std::string_view to_string(MessageState state);
std::string_view to_string(OutboxState state);

// nullopt for a string that names no state (the caller decides what an unknown value means).
std::optional<AttachmentState> parse_attachment_state(std::string_view text);
std::optional<MessageState> parse_message_state(std::string_view text);
std::optional<OutboxState> parse_outbox_state(std::string_view text);

}  // namespace agentworks::bridge
