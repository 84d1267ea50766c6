// The conversation a reply by message id goes to (R-C5, R-B13): the inbox of a message this attachment received.
// While the journal still holds the message's metadata its cached body (pending) or, once the body was cleared by
// the offer, a one-message mailbox read at its cursor names the inbox. Retired metadata is not guessed: the agent
// is told to read the mailbox and reply with the inbox address.
#pragma once

#include <functional>
#include <string>

#include "request/reply.hpp"
#include "state/journal.hpp"

namespace agentworks::bridge {

class ServerCalls;

// Calls `then(inbox_id)` (possibly later, after a server read) or answers `reply` with an error.
void find_reply_inbox(ServerCalls& bridge, const AttachmentRow& row, const std::string& message_id, const Reply& reply,
                      std::function<void(const std::string& inbox_id)> then);

}  // namespace agentworks::bridge
