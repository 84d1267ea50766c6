// Whether each attached chat is in a turn, as the bridge last saw it (R-X3): a typed prompt or a push into an idle
// chat starts one, a Stop the bridge did not continue ends it. In memory only: a chat the bridge has not seen since
// it started counts as busy, so a push then is taken to queue behind a turn and is never asked about too early.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace agentworks::bridge {

class ChatTurns {
 public:
  bool busy(const std::string& attachment_id) const {
    const auto it = busy_.find(attachment_id);
    return it == busy_.end() || it->second;
  }
  void started(const std::string& attachment_id) { busy_[attachment_id] = true; }
  void ended(const std::string& attachment_id) { busy_[attachment_id] = false; }
  void forget(const std::string& attachment_id) {
    busy_.erase(attachment_id);
    notes_.erase(attachment_id);
  }

  // What the person should know about how the chat's last turn ended (`status --agents`), e.g. a direct chat whose
  // final text stayed private because the turn took messages from several conversations (R-X5).
  struct Note {
    std::string text;
    std::int64_t at = 0;
  };
  void note(const std::string& attachment_id, std::string text, std::int64_t at) {
    notes_[attachment_id] = Note{std::move(text), at};
  }
  std::optional<Note> last_note(const std::string& attachment_id) const {
    const auto it = notes_.find(attachment_id);
    return it == notes_.end() ? std::nullopt : std::optional<Note>(it->second);
  }

 private:
  std::map<std::string, bool> busy_;
  std::map<std::string, Note> notes_;
};

}  // namespace agentworks::bridge
