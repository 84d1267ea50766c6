// What a commit tells the other replicas of a PostgreSQL store through NOTIFY: ids only, each payload far under
// PostgreSQL's 8,000-byte limit. Rows stay the truth: a notice says which rows to look at, and one that is lost
// (a listener reconnecting) only delays the delivery until the safety poll reads the rows.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace agentworks::server {

struct StoreEvents;

inline constexpr const char* kNoticeChannel = "agentworks";
inline constexpr std::size_t kNoticeMaxBytes = 7000;

struct ReplicaNotice {
  std::string replica;    // who committed: a replica skips its own notices
  bool messages = false;  // new messages: read them by sequence number
  std::vector<std::pair<std::string, std::string>> fenced;  // attachment_id, reason
  std::vector<std::string> revoked_connections;
  std::vector<std::string> calls_changed;
  std::vector<std::string> calls_cancelled;  // asked to end: the replica that runs one kills it (R-D3)
};

// One or more payloads (each at most max_bytes) for the events of a commit; none when there is nothing to say.
std::vector<std::string> notice_payloads(const std::string& replica, const StoreEvents& events,
                                         std::size_t max_bytes = kNoticeMaxBytes);

// nullopt for a payload this version does not understand (it is then ignored; the safety poll still runs).
std::optional<ReplicaNotice> parse_notice(const std::string& payload);

}  // namespace agentworks::server
