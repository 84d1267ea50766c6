// The hook's per-session state that lives only in memory (docs/protocol.md "Hook ops"): the loop-guard chain of
// each session (R-H2) and the attach proposal a person has not confirmed yet (R-H5). Lost on restart on purpose:
// a new bridge starts new chains, and an unconfirmed proposal is simply made again.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "request/request_fields.hpp"

namespace agentworks::bridge {

struct AttachProposal {
  std::string agent_name;
  std::string purpose;
  std::string config;  // the CLI config path the proposal was checked against ("" = the default)
};

class HookState {
 public:
  // The number of deliveries the session's current stop chain already holds. Claude and Codex: a stop with
  // stop_hook_active false starts a new chain (0); true continues the counted one. Cursor's loop_count is the
  // chain length itself.
  std::int64_t chain_length(const SessionKey& session, bool stop_hook_active, std::optional<std::int64_t> loop_count);
  // A delivery (non-empty text) was handed out in the current chain.
  void count_delivery(const SessionKey& session);

  void propose(const SessionKey& session, AttachProposal proposal);
  std::optional<AttachProposal> proposal(const SessionKey& session) const;
  void forget(const SessionKey& session);  // attached, detached or superseded: no chain, no proposal

 private:
  using Key = std::pair<std::string, std::string>;
  static Key key_of(const SessionKey& s) { return {s.provider, s.session_id}; }
  std::map<Key, std::int64_t> chains_;
  std::map<Key, AttachProposal> proposals_;
};

}  // namespace agentworks::bridge
