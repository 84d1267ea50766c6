// The hook registrations: which exact provider session each provider process (pid + start time) last reported
// through a hook. The MCP child and `agentworks bridge message` resolve their session here from their own
// provider ancestor (R-C6, R-C7); nothing is ever chosen by name or recency (R-H12). In memory only: after a
// bridge restart the next hook event of a session registers it again.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "agentworks/process_ancestry.hpp"
#include "request_fields.hpp"

namespace agentworks::bridge {

class SessionRegistry {
 public:
  // A hook of `key` reported this session. A later report from the same process replaces the earlier one
  // (Claude's /clear gives the same process a new session id).
  void record(const process::ProcessKey& key, const SessionKey& session);
  // The session that exactly this process (pid AND start time) last reported; nullopt when none.
  std::optional<SessionKey> session_for(const process::ProcessKey& key) const;
  // The process that last reported this session; nullopt when none.
  std::optional<process::ProcessKey> process_for(const SessionKey& session) const;
  std::size_t size() const { return by_process_.size(); }

 private:
  std::map<std::pair<long, std::string>, SessionKey> by_process_;
};

}  // namespace agentworks::bridge
