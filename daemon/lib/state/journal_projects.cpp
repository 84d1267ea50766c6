// The journal's record of the folder each typed attach ran in (R-H11: a new chat of the same project is told which
// offline names it can attach).
#include "state/journal.hpp"

namespace agentworks::bridge {

void Journal::set_attachment_cwd(const std::string& attachment_id, const std::string& cwd) {
  sql::Stmt s(db_,
              "INSERT INTO attachment_projects(attachment_id, cwd) VALUES(?1, ?2) "
              "ON CONFLICT(attachment_id) DO UPDATE SET cwd = excluded.cwd");
  s.bind(1, attachment_id).bind(2, cwd).run();
}

std::string Journal::attachment_cwd(const std::string& attachment_id) {
  sql::Stmt s(db_, "SELECT cwd FROM attachment_projects WHERE attachment_id = ?1");
  s.bind(1, attachment_id);
  return s.step() ? s.text(0) : std::string();
}

}  // namespace agentworks::bridge
