// Payload: "aw1 REPLICA" then one line per item: "m" (new messages), "f ATTACHMENT REASON", "r CONNECTION",
// "c CALL".
#include "store/replica_notice.hpp"

#include <set>

#include "store/store.hpp"

namespace agentworks::server {
namespace {

constexpr const char* kNoticeVersion = "aw1 ";

// Ids and reasons are the server's own tokens; a line break would split the line, so it never travels.
std::string one_line(const std::string& s) {
  std::string out = s;
  for (char& c : out)
    if (c == '\n' || c == '\r') c = ' ';
  return out;
}

}  // namespace

std::vector<std::string> notice_payloads(const std::string& replica, const StoreEvents& events, std::size_t max_bytes) {
  std::vector<std::string> lines;
  if (!events.messages.empty()) lines.emplace_back("m");
  for (const auto& [attachment, reason] : events.fenced) lines.push_back("f " + one_line(attachment) + " " + one_line(reason));
  for (const auto& id : events.revoked_connections) lines.push_back("r " + one_line(id));
  // A chatty call notes itself changed once per message: once per commit is news enough.
  std::set<std::string> calls(events.calls_changed.begin(), events.calls_changed.end());
  for (const auto& id : calls) lines.push_back("c " + one_line(id));
  for (const auto& id : events.calls_cancelled) lines.push_back("x " + one_line(id));
  std::vector<std::string> out;
  const std::string head = kNoticeVersion + one_line(replica);
  std::string current;
  for (const auto& line : lines) {
    if (!current.empty() && current.size() + 1 + line.size() > max_bytes) {
      out.push_back(std::move(current));
      current.clear();
    }
    if (current.empty()) current = head;
    current += '\n';
    current += line.substr(0, max_bytes - head.size() - 1);
  }
  if (!current.empty()) out.push_back(std::move(current));
  return out;
}

std::optional<ReplicaNotice> parse_notice(const std::string& payload) {
  const std::string version = kNoticeVersion;
  if (payload.compare(0, version.size(), version) != 0) return std::nullopt;
  ReplicaNotice n;
  std::size_t pos = version.size();
  std::size_t end = payload.find('\n', pos);
  n.replica = payload.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
  while (end != std::string::npos) {
    pos = end + 1;
    end = payload.find('\n', pos);
    const std::string line = payload.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    if (line == "m") {
      n.messages = true;
    } else if (line.size() > 2 && line[1] == ' ') {
      const std::string rest = line.substr(2);
      if (line[0] == 'f') {
        const auto space = rest.find(' ');
        n.fenced.emplace_back(rest.substr(0, space), space == std::string::npos ? "" : rest.substr(space + 1));
      } else if (line[0] == 'r') {
        n.revoked_connections.push_back(rest);
      } else if (line[0] == 'c') {
        n.calls_changed.push_back(rest);
      } else if (line[0] == 'x') {
        n.calls_cancelled.push_back(rest);
      }
    }
  }
  return n;
}

}  // namespace agentworks::server
