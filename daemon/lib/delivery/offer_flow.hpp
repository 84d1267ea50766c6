// The order every hand-out of waiting messages follows (invariants 1 and 4), shared by `take` and `deliver`:
// release check with the server -> the chosen messages persisted as offered in one transaction -> answer.
// When the server cannot be asked the messages are held; a refusal of the attachment fences it.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "request/reply.hpp"
#include "state/journal.hpp"

namespace agentworks::bridge {

class Bridge;

struct OfferHandlers {
  // Which of the releasable messages (oldest first) to offer now; `guidance` tells whether this offer will carry
  // the instructions. Empty function: all of them.
  std::function<std::vector<std::string>(const std::vector<CachedMessage>& releasable, bool guidance)> select;
  // The answer fields for what was just persisted as offered. A throw here is a definite failure before
  // delivery: the guidance timestamp is restored (R-B17), the messages stay offered (invariant 1).
  std::function<nlohmann::json(const AttachmentRow& row, const OfferBatch& batch)> answer;
  // The answer fields when the release check could not be asked: `held` messages wait.
  std::function<nlohmann::json(const AttachmentRow& row, std::size_t held)> held;
  // Issue 12.7: the answer line is what reaches the chat (take, deliver), so its offers count as arrived once
  // it is written to the client and as possibly lost when the client went away first. A native push is not its
  // answer line: the router settles those offers from the push's outcome.
  bool answer_delivers = true;
  // After the answer's offers were settled: whether it was written (answer_delivers only).
  std::function<void(bool written)> written;
};

// Offers that reached their chat (or may not have): recorded in the journal, a journal failure stops the bridge.
void settle_offers(Bridge& bridge, const std::vector<std::string>& message_ids, bool emitted);

// `pending` is what the caller read from the journal (oldest first, at most 100); `token` is the child token.
void release_and_offer(Bridge& bridge, const Reply& reply, const AttachmentRow& row, const std::string& token,
                       std::vector<CachedMessage> pending, OfferHandlers handlers);

}  // namespace agentworks::bridge
