// The journal's record of names other chats took from this bridge's attachments (R-H7), so the losing
// chat is told at its next turn end and in its status, also after a restart.
#include "state/journal.hpp"

namespace agentworks::bridge {

void Journal::record_name_loss(const std::string& attachment_id, const std::string& taken_by, std::int64_t at) {
  // A precise record (the taking attach on this bridge) is never replaced by the vaguer one the fence writes.
  sql::Stmt s(db_,
              "INSERT INTO name_losses(attachment_id, taken_by, taken_at, told) VALUES(?1, ?2, ?3, 0) "
              "ON CONFLICT(attachment_id) DO UPDATE SET taken_by = excluded.taken_by, taken_at = excluded.taken_at "
              "WHERE excluded.taken_by != '' OR name_losses.taken_by = ''");
  s.bind(1, attachment_id).bind(2, taken_by).bind(3, at).run();
}

std::optional<NameLoss> Journal::name_loss(const std::string& attachment_id) {
  sql::Stmt s(db_, "SELECT taken_by, taken_at, told FROM name_losses WHERE attachment_id = ?1");
  s.bind(1, attachment_id);
  if (!s.step()) return std::nullopt;
  return NameLoss{s.text(0), s.int64(1), s.int64(2) != 0};
}

void Journal::name_loss_told(const std::string& attachment_id) {
  sql::Stmt s(db_, "UPDATE name_losses SET told = 1 WHERE attachment_id = ?1");
  s.bind(1, attachment_id).run();
}

}  // namespace agentworks::bridge
