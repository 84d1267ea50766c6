// Messages the journal had no room for (R-B9), per attachment, in memory. When the journal answers
// over_quota the attachment's caching pauses: the watermark stays at the last journaled message, later stream
// events are only counted, and once room returns the stream is reopened from the watermark so the server sends
// the held messages again. Counts distinct mailbox sequences, so a replay never counts a message twice. After a
// bridge restart the stream replays from the watermark and the count is rebuilt the same way.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "state/journal.hpp"

namespace agentworks::bridge {

class HeldBack {
 public:
  // The journal's answer for one message of a stream batch (not paused).
  void received(const std::string& attachment_id, std::int64_t seq, ReceiveResult result);
  // A stream event that arrived while paused: not journaled, counted once.
  void dropped(const std::string& attachment_id, std::int64_t seq);
  // The stream is (re)opened from the watermark: caching runs again; the count stays until the replay settles it.
  void resume(const std::string& attachment_id);
  void forget(const std::string& attachment_id) { state_.erase(attachment_id); }

  bool paused(const std::string& attachment_id) const;
  // Messages seen on the stream and waiting on the server because the journal had no room.
  std::int64_t count(const std::string& attachment_id) const;
  std::vector<std::string> paused_attachments() const;

 private:
  struct State {
    bool paused = false;
    std::int64_t held = 0;
    std::int64_t held_through = 0;  // highest sequence counted
  };
  void count_new(State& s, std::int64_t seq);
  std::map<std::string, State> state_;
};

}  // namespace agentworks::bridge
