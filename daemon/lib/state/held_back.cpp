#include "state/held_back.hpp"

namespace agentworks::bridge {

void HeldBack::count_new(State& s, std::int64_t seq) {
  if (seq <= s.held_through) return;  // already counted (a replay)
  s.held_through = seq;
  ++s.held;
}

void HeldBack::received(const std::string& attachment_id, std::int64_t seq, ReceiveResult result) {
  if (result == ReceiveResult::over_quota) {
    auto& s = state_[attachment_id];
    s.paused = true;
    count_new(s, seq);
    return;
  }
  const auto it = state_.find(attachment_id);
  if (it == state_.end() || result == ReceiveResult::below_watermark) return;
  State& s = it->second;
  // A held message came back and is journaled (or acknowledged) now.
  if (seq <= s.held_through && s.held > 0) --s.held;
  if (seq >= s.held_through && !s.paused) state_.erase(it);
}

void HeldBack::dropped(const std::string& attachment_id, std::int64_t seq) {
  auto& s = state_[attachment_id];
  s.paused = true;
  count_new(s, seq);
}

void HeldBack::resume(const std::string& attachment_id) {
  const auto it = state_.find(attachment_id);
  if (it != state_.end()) it->second.paused = false;
}

bool HeldBack::paused(const std::string& attachment_id) const {
  const auto it = state_.find(attachment_id);
  return it != state_.end() && it->second.paused;
}

std::int64_t HeldBack::count(const std::string& attachment_id) const {
  const auto it = state_.find(attachment_id);
  return it == state_.end() ? 0 : it->second.held;
}

std::vector<std::string> HeldBack::paused_attachments() const {
  std::vector<std::string> out;
  for (const auto& [id, s] : state_) {
    if (s.paused) out.push_back(id);
  }
  return out;
}

}  // namespace agentworks::bridge
