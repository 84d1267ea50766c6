#include "session_registry.hpp"

namespace agentworks::bridge {

void SessionRegistry::record(const process::ProcessKey& key, const SessionKey& session) {
  by_process_[{key.pid, key.start}] = session;
}

std::optional<SessionKey> SessionRegistry::session_for(const process::ProcessKey& key) const {
  const auto it = by_process_.find({key.pid, key.start});
  if (it == by_process_.end()) return std::nullopt;
  return it->second;
}

std::optional<process::ProcessKey> SessionRegistry::process_for(const SessionKey& session) const {
  for (const auto& [k, s] : by_process_) {
    if (s.provider == session.provider && s.session_id == session.session_id) {
      return process::ProcessKey{k.first, k.second};
    }
  }
  return std::nullopt;
}

}  // namespace agentworks::bridge
