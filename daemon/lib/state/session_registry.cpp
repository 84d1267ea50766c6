#include "state/session_registry.hpp"

#include <unistd.h>

namespace agentworks::bridge {
namespace {

bool alive_in_proc(const process::ProcessKey& key) {
  const auto now = process::key_of(key.pid);
  return now && now->start == key.start;
}

}  // namespace

SessionRegistry::SessionRegistry() : max_entries_(kMaxEntries) {
  // Without a readable /proc every process would look gone: then only the cap bounds the registry.
  if (process::key_of(static_cast<long>(::getpid()))) alive_ = alive_in_proc;
}

SessionRegistry::SessionRegistry(Alive alive, std::size_t max_entries)
    : alive_(std::move(alive)), max_entries_(max_entries < 1 ? 1 : max_entries) {}

void SessionRegistry::record(const process::ProcessKey& key, const SessionKey& session) {
  const Key k{key.pid, key.start};
  auto [it, added] = by_process_.try_emplace(k);
  it->second.session = session;
  it->second.reported = ++clock_;
  if (!added) return;
  drop_ended(k);
  while (by_process_.size() > max_entries_) drop_least_recent(k);
}

void SessionRegistry::drop_ended(const Key& just_added) {
  if (!alive_) return;
  auto it = by_process_.lower_bound(sweep_from_);
  for (std::size_t checked = 0; checked < kChecksPerInsert && by_process_.size() > 1; ++checked) {
    if (it == by_process_.end()) it = by_process_.begin();
    if (it->first == just_added) {
      ++it;
      continue;
    }
    if (!alive_(process::ProcessKey{it->first.first, it->first.second})) {
      it = by_process_.erase(it);
    } else {
      ++it;
    }
  }
  sweep_from_ = it == by_process_.end() ? Key{} : it->first;
}

void SessionRegistry::drop_least_recent(const Key& just_added) {
  auto oldest = by_process_.end();
  for (auto it = by_process_.begin(); it != by_process_.end(); ++it) {
    if (it->first == just_added) continue;
    if (oldest == by_process_.end() || it->second.reported < oldest->second.reported) oldest = it;
  }
  if (oldest == by_process_.end()) return;
  by_process_.erase(oldest);
}

std::optional<SessionKey> SessionRegistry::session_for(const process::ProcessKey& key) const {
  const auto it = by_process_.find({key.pid, key.start});
  if (it == by_process_.end()) return std::nullopt;
  return it->second.session;
}

std::optional<process::ProcessKey> SessionRegistry::process_for(const SessionKey& session) const {
  // The process that reported the session most recently.
  std::optional<process::ProcessKey> found;
  std::uint64_t best = 0;
  for (const auto& [k, e] : by_process_) {
    if (e.session.provider == session.provider && e.session.session_id == session.session_id && e.reported >= best) {
      best = e.reported;
      found = process::ProcessKey{k.first, k.second};
    }
  }
  return found;
}

}  // namespace agentworks::bridge
