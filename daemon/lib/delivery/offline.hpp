// An attachment goes offline (R-H11): its identity and name stay for `resume`, delivery stops (stream closed,
// native route ended) and messages wait on the server. SessionEnd and the end of the chat's own process (a Codex
// TUI that quit while its daemon keeps the thread) both come here.
#pragma once

#include <string>

namespace agentworks::bridge {

class DeliveryServices;

// Does nothing unless the attachment is `attached`; true when it went offline now. `why` goes to the log.
bool take_offline(DeliveryServices& bridge, const std::string& attachment_id, const std::string& why);

}  // namespace agentworks::bridge
