#include "delivery/delivery_notices.hpp"

#include <nlohmann/json.hpp>

#include "services/delivery_services.hpp"
#include "state/held_back.hpp"

namespace agentworks::bridge {

std::string mailbox_cursor_text(std::int64_t seq) { return seq > 0 ? "m" + std::to_string(seq) : std::string("0"); }

DeliveryNotices notices_for(DeliveryServices& bridge, const AttachmentRow& row) {
  DeliveryNotices n;
  n.held_back = bridge.held_back().count(row.attachment_id);
  if (n.held_back > 0) {
    n.held_back_after = mailbox_cursor_text(bridge.journal().watermark(row.server_url, row.agent_name));
  }
  const auto lost = bridge.journal().possibly_lost(row.attachment_id, 20);
  n.possibly_lost = lost.message_ids;
  n.possibly_lost_total = lost.count;
  n.possibly_lost_after = mailbox_cursor_text(lost.first_seq - 1);
  return n;
}

// R-B9, R-B6: how many messages wait on the server because the journal was full, how many offers may not
// have arrived, and the command that reads each (as the person's login).
void add_held_and_lost(DeliveryServices& bridge, const AttachmentRow& row, const AttachmentCounts& counts,
                       nlohmann::json& out) {
  const auto held = bridge.held_back().count(row.attachment_id);
  out["held_back"] = held;
  out["possibly_lost"] = counts.possibly_lost;
  if (held > 0) {
    out["held_back_read"] = "agentworks messages read --agent " + row.agent_name + " --after " +
                            mailbox_cursor_text(bridge.journal().watermark(row.server_url, row.agent_name));
  }
  if (counts.possibly_lost > 0) {
    const auto lost = bridge.journal().possibly_lost(row.attachment_id, 20, true);
    out["possibly_lost_ids"] = lost.message_ids;
    out["possibly_lost_read"] =
        "agentworks messages read --agent " + row.agent_name + " --after " + mailbox_cursor_text(lost.first_seq - 1);
  }
}

}  // namespace agentworks::bridge
