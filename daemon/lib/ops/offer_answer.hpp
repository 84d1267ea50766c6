// How `take` and `deliver` answer their socket request from an offer's outcome (delivery/offer_flow.hpp): the
// answer line is what reaches the chat.
#pragma once

#include <cstddef>
#include <functional>

#include <nlohmann/json_fwd.hpp>

#include "delivery/offer_flow.hpp"
#include "request/reply.hpp"
#include "state/journal.hpp"

namespace agentworks::bridge {

class Bridge;

struct OfferAnswer {
  // The answer fields for what was just persisted as offered. A throw here is a definite failure before
  // delivery (offer_not_carried: the guidance timestamp is restored, R-B17; the messages stay offered, invariant
  // 1) and becomes the error answer.
  std::function<nlohmann::json(const AttachmentRow& row, const OfferBatch& batch)> offered;
  // The answer fields when the release check could not be asked: `held` messages wait.
  std::function<nlohmann::json(const AttachmentRow& row, std::size_t held)> held;
  // After the answer's offers were settled (R-B6: they count as arrived once the line is written to the
  // client, as possibly lost when the client went away first): whether it was written. May be empty.
  std::function<void(bool written)> written;
};

// The outcome's answer on `reply`: an error outcome as its error, held and offered ones as `answer` builds them.
OfferDone answer_offer(Bridge& bridge, const Reply& reply, OfferAnswer answer);

}  // namespace agentworks::bridge
