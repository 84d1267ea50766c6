// What the next delivery to a chat must say besides its messages (R-B9, R-B6): how many messages wait on
// the server because the journal was full, and which earlier offers may not have arrived. Read from the journal
// and the bridge's held-back count; the text is delivery_text's.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "delivery/delivery_text.hpp"
#include "state/journal.hpp"

namespace agentworks::bridge {

class DeliveryServices;

DeliveryNotices notices_for(DeliveryServices& bridge, const AttachmentRow& row);

// Adds held_back, possibly_lost (and, when not zero, the ids and the commands that read them as the person) to
// an attachment's status object.
void add_held_and_lost(DeliveryServices& bridge, const AttachmentRow& row, const AttachmentCounts& counts,
                       nlohmann::json& out);

// "m<N>", or "0" for the start of the mailbox.
std::string mailbox_cursor_text(std::int64_t seq);

}  // namespace agentworks::bridge
