// What the delivery flows (offer, notices, going offline) and the native router need from the bridge besides
// server calls: held-back counts and the hub's own reactions to what a flow decided (room freed in the
// journal, an attachment fenced, its stream closed, its native route ended). The hub implements it, so no flow
// includes the hub or a room above its own.
#pragma once

#include <string>

#include "services/server_calls.hpp"

namespace agentworks::bridge {

class HeldBack;
class ChatTurns;

class DeliveryServices : public ServerCalls {
 public:
  // Messages waiting on the server because the journal was full (R-B9).
  virtual const HeldBack& held_back() const = 0;
  // Which chats are in a turn (R-X3): a push into an idle one starts a turn.
  virtual ChatTurns& chat_turns() = 0;
  // Something left the quota: paused attachments with room again reopen their streams on a later loop turn.
  virtual void room_freed() = 0;
  // Delivery for this attachment stops at once (fenced, revoked, unauthorised): state `fenced`, stream closed.
  virtual void fence(const std::string& attachment_id, const std::string& reason) = 0;
  virtual void close_stream(const std::string& attachment_id) = 0;
  // The attachment's native push route ends (offline, detach); a push in flight still settles its messages.
  virtual void end_native_route(const std::string& attachment_id) = 0;
};

}  // namespace agentworks::bridge
