// The order every hand-out of waiting messages follows (invariants 1 and 4), shared by `take`, `deliver` and the
// native push: release check with the server -> the chosen messages persisted as offered in one transaction ->
// the caller is told the outcome and carries the offer to its chat (an answer line, a push).
// When the server cannot be asked the messages are held; a refusal of the attachment fences it.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "agentworks/error.hpp"
#include "state/journal.hpp"

namespace agentworks::bridge {

class DeliveryServices;

// How one release_and_offer() went, told to its caller exactly once, on the loop.
struct OfferOutcome {
  enum class Kind {
    offered,  // `batch` is persisted as offered (it may hold no message: nothing was releasable or chosen)
    held,     // the release check could not be asked: `held` messages wait
    error,    // nothing was offered: `code` and `message` (the attachment was fenced, a journal error, ...)
  };
  Kind kind = Kind::error;
  AttachmentRow row;      // offered: the attachment as the offer found it; held: as the caller passed it
  OfferBatch batch;       // offered
  std::size_t held = 0;   // held
  ErrorCode code = ErrorCode::internal;  // error
  std::string message;                   // error

  // The ids in `batch`, oldest first.
  std::vector<std::string> offered_ids() const;
};

// Which of the releasable messages (oldest first) to offer now; `guidance` tells whether this offer will carry
// the instructions. Empty function: all of them.
using OfferSelect =
    std::function<std::vector<std::string>(const std::vector<CachedMessage>& releasable, bool guidance)>;
using OfferDone = std::function<void(OfferOutcome outcome)>;

// Offers that reached their chat (or may not have): recorded in the journal, a journal failure stops the bridge.
void settle_offers(DeliveryServices& bridge, const std::vector<std::string>& message_ids, bool emitted);

// The chat was told these offers may not have arrived (R-B6): recorded in the journal (journal errors propagate),
// and reported to the server, whose wakeups among them read `interrupted` and are never offered again (R-W4). The
// report is one request, not retried: when it fails it is logged and such a wakeup keeps reading `offered`.
void lost_offers_told(DeliveryServices& bridge, const std::string& attachment_id,
                      const std::vector<std::string>& message_ids);

// An offered outcome could not be carried to its chat (building its answer or push failed): a definite failure
// before delivery. The guidance timestamp is restored (R-B17); the messages stay offered (invariant 1) and count
// as not arrived, so the chat's next delivery says so (R-B6). Journal errors propagate.
void offer_not_carried(DeliveryServices& bridge, const OfferOutcome& outcome);

// `pending` is what the caller read from the journal (oldest first, at most 100); `token` is the child token.
// `done` is called once with the outcome; it must not throw. `pushed`: a native push (it starts a turn of an idle
// chat, R-X3), not a hand-out to the turn under way.
void release_and_offer(DeliveryServices& bridge, const AttachmentRow& row, const std::string& token,
                       std::vector<CachedMessage> pending, OfferSelect select, OfferDone done, bool pushed = false);

}  // namespace agentworks::bridge
