#include "state/hook_state.hpp"

namespace agentworks::bridge {

std::int64_t HookState::chain_length(const SessionKey& session, bool stop_hook_active,
                                     std::optional<std::int64_t> loop_count) {
  auto& chain = chains_[key_of(session)];
  if (loop_count) {
    chain = *loop_count;
  } else if (!stop_hook_active) {
    chain = 0;
  }
  return chain;
}

void HookState::count_delivery(const SessionKey& session) { ++chains_[key_of(session)]; }

void HookState::propose(const SessionKey& session, AttachProposal proposal) {
  proposals_[key_of(session)] = std::move(proposal);
}

std::optional<AttachProposal> HookState::proposal(const SessionKey& session) const {
  const auto it = proposals_.find(key_of(session));
  if (it == proposals_.end()) return std::nullopt;
  return it->second;
}

void HookState::forget(const SessionKey& session) {
  chains_.erase(key_of(session));
  proposals_.erase(key_of(session));
}

}  // namespace agentworks::bridge
