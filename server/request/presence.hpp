// What a handler may ask about live streams: the hub (http/hub.hpp) answers it, and the handlers below http/
// see only this question, not the hub.
#pragma once

#include <string>

namespace agentworks::server {

class Presence {
 public:
  virtual ~Presence() = default;
  // Open event streams of one attachment on this replica.
  virtual int stream_count(const std::string& attachment_id) const = 0;
  // Whether the agent has a live stream on this replica.
  virtual bool agent_connected(const std::string& agent_id) = 0;
};

}  // namespace agentworks::server
