// The hook registrations: which exact provider session each provider process (pid + start time) last reported
// through a hook. The MCP child and `agentworks bridge message` resolve their session here from their own
// provider ancestor (R-C6, R-C7); nothing is ever chosen by name or recency (R-H12). In memory only: after a
// bridge restart the next hook event of a session registers it again.
// Bounded: a process that has ended can never report again, so each new registration checks a few
// existing ones (round robin) and drops those whose process is gone; past kMaxEntries the least recently
// reported one goes.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "agentworks/process_ancestry.hpp"
#include "request/request_fields.hpp"

namespace agentworks::bridge {

class SessionRegistry {
 public:
  using Alive = std::function<bool(const process::ProcessKey&)>;
  static constexpr std::size_t kMaxEntries = 4096;
  static constexpr std::size_t kChecksPerInsert = 2;

  // Liveness from /proc (when /proc cannot be read, nothing is dropped as gone).
  SessionRegistry();
  // For tests: another liveness check and cap.
  SessionRegistry(Alive alive, std::size_t max_entries);

  // A hook of `key` reported this session. A later report from the same process replaces the earlier one
  // (Claude's /clear gives the same process a new session id).
  void record(const process::ProcessKey& key, const SessionKey& session);
  // The session that exactly this process (pid AND start time) last reported; nullopt when none.
  std::optional<SessionKey> session_for(const process::ProcessKey& key) const;
  // The process that last reported this session; nullopt when none.
  std::optional<process::ProcessKey> process_for(const SessionKey& session) const;
  std::size_t size() const { return by_process_.size(); }

 private:
  using Key = std::pair<long, std::string>;
  struct Entry {
    SessionKey session;
    std::uint64_t reported = 0;  // recency, for the cap
  };
  void drop_ended(const Key& just_added);
  void drop_least_recent(const Key& just_added);

  Alive alive_;
  std::size_t max_entries_;
  std::map<Key, Entry> by_process_;
  Key sweep_from_;  // where the next liveness checks start
  std::uint64_t clock_ = 0;
};

}  // namespace agentworks::bridge
