#include "state/states.hpp"

#include <array>
#include <utility>

namespace agentworks::bridge {
namespace {

template <typename E, std::size_t N>
std::string_view name_of(const std::array<std::pair<E, std::string_view>, N>& names, E state) {
  for (const auto& [value, name] : names) {
    if (value == state) return name;
  }
  return {};  // unreachable: every enumerator is listed
}

template <typename E, std::size_t N>
std::optional<E> value_of(const std::array<std::pair<E, std::string_view>, N>& names, std::string_view text) {
  for (const auto& [value, name] : names) {
    if (name == text) return value;
  }
  return std::nullopt;
}

constexpr std::array<std::pair<AttachmentState, std::string_view>, 3> kAttachmentNames{{
    {AttachmentState::attached, "attached"},
    {AttachmentState::offline, "offline"},
    {AttachmentState::fenced, "fenced"},
}};

constexpr std::array<std::pair<MessageState, std::string_view>, 5> kMessageNames{{
    {MessageState::received, "received"},
    {MessageState::offered, "offered"},
    {MessageState::admitted, "admitted"},
    {MessageState::processed, "processed"},
    {MessageState::withheld, "withheld"},
}};

constexpr std::array<std::pair<OutboxState, std::string_view>, 3> kOutboxNames{{
    {OutboxState::queued, "queued"},
    {OutboxState::done, "done"},
    {OutboxState::failed, "failed"},
}};

}  // namespace

std::string_view to_string(AttachmentState state) { return name_of(kAttachmentNames, state); }
std::string_view to_string(MessageState state) { return name_of(kMessageNames, state); }
std::string_view to_string(OutboxState state) { return name_of(kOutboxNames, state); }

std::optional<AttachmentState> parse_attachment_state(std::string_view text) {
  return value_of(kAttachmentNames, text);
}
std::optional<MessageState> parse_message_state(std::string_view text) { return value_of(kMessageNames, text); }
std::optional<OutboxState> parse_outbox_state(std::string_view text) { return value_of(kOutboxNames, text); }

}  // namespace agentworks::bridge
