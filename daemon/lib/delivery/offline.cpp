#include "delivery/offline.hpp"

#include "platform/log.hpp"
#include "services/delivery_services.hpp"
#include "state/journal.hpp"

namespace agentworks::bridge {

bool take_offline(DeliveryServices& bridge, const std::string& attachment_id, const std::string& why) {
  const auto row = bridge.journal().attachment(attachment_id);
  if (!row || row->state != AttachmentState::attached) return false;
  bridge.journal().set_attachment_state(attachment_id, AttachmentState::offline);
  bridge.close_stream(attachment_id);
  bridge.end_native_route(attachment_id);
  log::info("offline: " + row->agent_name + " (" + attachment_id + "): " + why);
  return true;
}

}  // namespace agentworks::bridge
