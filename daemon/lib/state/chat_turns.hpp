// Whether each attached chat is in a turn, as the bridge last saw it (R-X3): a typed prompt or a push into an idle
// chat starts one, a Stop the bridge did not continue ends it. In memory only: a chat the bridge has not seen since
// it started counts as busy, so a push then is taken to queue behind a turn and is never asked about too early.
#pragma once

#include <map>
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
  void forget(const std::string& attachment_id) { busy_.erase(attachment_id); }

 private:
  std::map<std::string, bool> busy_;
};

}  // namespace agentworks::bridge
