#include "store/states.hpp"

#include <array>
#include <utility>

#include "agentworks/error.hpp"

namespace agentworks::server {
namespace {

template <typename State, std::size_t N>
std::string_view name_in(const std::array<std::pair<State, std::string_view>, N>& names, State state) {
  for (const auto& [s, name] : names)
    if (s == state) return name;
  return "unknown";
}

template <typename State, std::size_t N>
std::optional<State> state_in(const std::array<std::pair<State, std::string_view>, N>& names, std::string_view text) {
  for (const auto& [s, name] : names)
    if (name == text) return s;
  return std::nullopt;
}

template <typename State>
State column(std::optional<State> state, const char* what, std::string_view text) {
  if (!state) throw Error(ErrorCode::internal, std::string("a stored ") + what + " reads '" + std::string(text) +
                                                   "', which names no state: the store is damaged");
  return *state;
}

constexpr std::array<std::pair<ConversationState, std::string_view>, 2> kConversation{{
    {ConversationState::open, "open"}, {ConversationState::expired, "expired"}}};
constexpr std::array<std::pair<MessageState, std::string_view>, 3> kMessage{{
    {MessageState::stored, "stored"}, {MessageState::admitted, "admitted"}, {MessageState::processed, "processed"}}};
constexpr std::array<std::pair<AttachmentState, std::string_view>, 4> kAttachment{{
    {AttachmentState::current, "current"}, {AttachmentState::fenced, "fenced"},
    {AttachmentState::detached, "detached"}, {AttachmentState::revoked, "revoked"}}};
constexpr std::array<std::pair<CallStatus, std::string_view>, 6> kCall{{
    {CallStatus::running, "running"}, {CallStatus::waiting_input, "waiting_input"},
    {CallStatus::completed, "completed"}, {CallStatus::failed, "failed"}, {CallStatus::cancelled, "cancelled"},
    {CallStatus::interrupted, "interrupted"}}};

}  // namespace

std::string_view to_string(ConversationState state) { return name_in(kConversation, state); }
std::string_view to_string(MessageState state) { return name_in(kMessage, state); }
std::string_view to_string(AttachmentState state) { return name_in(kAttachment, state); }
std::string_view to_string(CallStatus status) { return name_in(kCall, status); }

std::optional<ConversationState> parse_conversation_state(std::string_view text) { return state_in(kConversation, text); }
std::optional<MessageState> parse_message_state(std::string_view text) { return state_in(kMessage, text); }
std::optional<AttachmentState> parse_attachment_state(std::string_view text) { return state_in(kAttachment, text); }
std::optional<CallStatus> parse_call_status(std::string_view text) { return state_in(kCall, text); }

ConversationState conversation_state_column(std::string_view text) {
  return column(parse_conversation_state(text), "conversation state", text);
}
MessageState message_state_column(std::string_view text) { return column(parse_message_state(text), "message state", text); }
AttachmentState attachment_state_column(std::string_view text) {
  return column(parse_attachment_state(text), "attachment state", text);
}
CallStatus call_status_column(std::string_view text) { return column(parse_call_status(text), "call status", text); }

}  // namespace agentworks::server
