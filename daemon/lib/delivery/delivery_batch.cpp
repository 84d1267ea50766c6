#include "delivery/delivery_batch.hpp"
#include "delivery/offer_flow.hpp"
#include "services/delivery_services.hpp"

#include <algorithm>

namespace agentworks::bridge {
namespace {

DeliveryContext context_for(const AttachmentRow& row, bool guidance, std::int64_t max_units,
                            std::int64_t waiting_after, const DeliveryNotices& notices) {
  return {row.agent_name, row.attachment_id, row.provider, guidance, static_cast<std::size_t>(max_units),
          static_cast<std::size_t>(std::max<std::int64_t>(waiting_after, 0)), notices};
}

}  // namespace

std::vector<DeliveryMessage> delivery_messages(const std::vector<CachedMessage>& cached) {
  std::vector<DeliveryMessage> out;
  out.reserve(cached.size());
  for (const auto& m : cached) {
    auto d = delivery_message_from_json(m.body);
    if (d.message_id.empty()) d.message_id = m.message_id;
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<std::string> fitting_prefix(Journal& journal, const AttachmentRow& row,
                                        const std::vector<CachedMessage>& releasable, bool guidance,
                                        std::int64_t max_units, const DeliveryNotices& notices) {
  // Those waiting beyond the release-checked ones are announced too; after the offer the same count remains.
  const auto beyond = journal.counts(row.attachment_id).pending - static_cast<std::int64_t>(releasable.size());
  const auto fit =
      format_delivery(delivery_messages(releasable), context_for(row, guidance, max_units, beyond, notices)).included;
  std::vector<std::string> ids;
  for (std::size_t i = 0; i < fit; ++i) ids.push_back(releasable[i].message_id);
  return ids;
}

DeliveryText batch_text(const AttachmentRow& row, const OfferBatch& batch, std::int64_t max_units,
                        std::int64_t still_pending, const DeliveryNotices& notices) {
  return format_delivery(delivery_messages(batch.messages),
                         context_for(row, batch.guidance, max_units, still_pending, notices));
}

OfferedText offered_text(DeliveryServices& bridge, const AttachmentRow& row, const OfferBatch& batch,
                         std::int64_t max_units, const DeliveryNotices& notices) {
  OfferedText out;
  out.still_pending = bridge.journal().counts(row.attachment_id).pending;
  out.text = batch_text(row, batch, max_units, out.still_pending, notices);
  std::vector<std::string> left_out;
  for (std::size_t i = out.text.included; i < batch.messages.size(); ++i) left_out.push_back(batch.messages[i].message_id);
  settle_offers(bridge, left_out, false);
  return out;
}

}  // namespace agentworks::bridge
