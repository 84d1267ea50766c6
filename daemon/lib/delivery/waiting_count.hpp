// How many messages wait for an attachment's name: those cached locally and not yet offered, plus those the
// server stores after the receive watermark (not yet streamed here: the stream is down, offline, or just
// opened). One bounded mailbox read with the agent's child token; best effort.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "request/reply.hpp"
#include "state/journal.hpp"

namespace agentworks::bridge {

class ServerCalls;

struct WaitingCount {
  std::int64_t count = 0;
  bool more = false;  // the server held more than one page (100) after the watermark: at least `count`
};

// `done` gets nullopt when the server cannot be asked (no credential, unreachable, refused). Runs on the loop;
// an exception in `done` answers `reply`.
void count_waiting(ServerCalls& bridge, const AttachmentRow& row, const Reply& reply,
                   std::function<void(std::optional<WaitingCount>)> done, long timeout_ms = 5000);

}  // namespace agentworks::bridge
