// The text of one offer, built the same way for every route (the Stop hook's `deliver`, Claude's session inbox,
// Codex's queue): which waiting messages fit one text, and the text for the batch that was just offered.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "delivery/delivery_text.hpp"
#include "state/journal.hpp"

namespace agentworks::bridge {
class DeliveryServices;
}

namespace agentworks::bridge {

// The cached Message JSON of each message as the formatter's fields.
std::vector<DeliveryMessage> delivery_messages(const std::vector<CachedMessage>& cached);

// The ids of the oldest-first prefix of `releasable` that fits `max_units` (those still waiting beyond them are
// announced in the text, so they count against the budget too).
// `notices` are the ones the text will carry (they take room too).
std::vector<std::string> fitting_prefix(Journal& journal, const AttachmentRow& row,
                                        const std::vector<CachedMessage>& releasable, bool guidance,
                                        std::int64_t max_units, const DeliveryNotices& notices = {});

// The text for a batch just persisted as offered; `still_pending` is what waits after it.
DeliveryText batch_text(const AttachmentRow& row, const OfferBatch& batch, std::int64_t max_units,
                        std::int64_t still_pending, const DeliveryNotices& notices = {});

// What every route does with a batch release_and_offer() just offered: its text, with the notices its prefix was
// chosen with, and the offered messages that did not fit settled back as not emitted (R-B6: the next delivery
// lists them). `still_pending` is what waits after the batch.
struct OfferedText {
  DeliveryText text;
  std::int64_t still_pending = 0;
};
OfferedText offered_text(DeliveryServices& bridge, const AttachmentRow& row, const OfferBatch& batch,
                         std::int64_t max_units, const DeliveryNotices& notices);

}  // namespace agentworks::bridge
