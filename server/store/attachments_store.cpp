// Attachments: one current attachment per agent; creating one fences the previous (R-B8, invariant 5).
#include "agentworks/error.hpp"
#include "agentworks/random.hpp"
#include "agentworks/validation.hpp"
#include "clock.hpp"
#include "store/store.hpp"

namespace agentworks::server {
namespace {

#define AW_ATTACHMENT_COLUMNS                                                                            \
  "SELECT attachment_id, account_id, agent_id, agent_name, purpose, provider, native_session_id, state," \
  " created_by, created_at FROM attachments "

Attachment read_attachment(db::Statement& s) {
  Attachment a;
  a.attachment_id = s.text(0);
  a.account_id = s.text(1);
  a.agent_id = s.text(2);
  a.agent_name = s.text(3);
  a.purpose = s.text(4);
  a.provider = s.text(5);
  a.native_session_id = s.text(6);
  a.state = attachment_state_column(s.text(7));
  a.created_by = s.text(8);
  a.created_at = s.int64(9);
  return a;
}

}  // namespace

std::optional<Attachment> Store::attachment_by_id(const std::string& id) {
  Q q(*this, AW_ATTACHMENT_COLUMNS "WHERE attachment_id = ?");
  q->bind(1, id);
  if (!q->step()) return std::nullopt;
  return read_attachment(*q);
}

std::optional<std::string> Store::current_attachment_id(const std::string& agent_id) {
  Q q(*this, "SELECT attachment_id FROM attachments WHERE agent_id = ? AND state = 'current' LIMIT 1");
  q->bind(1, agent_id);
  if (!q->step()) return std::nullopt;
  return q->text(0);
}

void Store::set_attachment_state(const std::string& attachment_id, AttachmentState state,
                                 const std::string& reason) {
  Q q(*this, "UPDATE attachments SET state = ? WHERE attachment_id = ? AND state = 'current'");
  q->bind(1, state_text(state)).bind(2, attachment_id).run();
  if (sql_changes() > 0) request_events_.fenced.emplace_back(attachment_id, reason);
}

void Store::revoke_attachments_of(const std::string& connection_id) {
  std::vector<std::string> ids;
  {
    Q q(*this, "SELECT attachment_id FROM attachments WHERE created_by = ? AND state = 'current'");
    q->bind(1, connection_id);
    while (q->step()) ids.push_back(q->text(0));
  }
  for (const auto& id : ids) set_attachment_state(id, AttachmentState::revoked, "revoked");
}

void Store::detach_attachments_of_agent(const std::string& agent_id) {
  if (auto id = current_attachment_id(agent_id)) set_attachment_state(*id, AttachmentState::detached, "detached");
}

Attachment Store::create_attachment(const Connection& caller, const std::string& agent_name, const std::string& purpose,
                                    const std::string& provider, const std::string& native_session_id) {
  const Agent agent = require_allowed(caller, agent_name);
  if (auto previous = current_attachment_id(agent.agent_id)) set_attachment_state(*previous, AttachmentState::fenced, "superseded");
  Attachment a;
  a.attachment_id = new_id("att");
  a.account_id = caller.account_id;
  a.agent_id = agent.agent_id;
  a.agent_name = agent.name;
  a.purpose = purpose;
  a.provider = provider;
  a.native_session_id = native_session_id;
  a.state = AttachmentState::current;
  a.created_by = caller.connection_id;
  a.created_at = now();
  Q q(*this,
      "INSERT INTO attachments(attachment_id, account_id, agent_id, agent_name, purpose, provider, native_session_id,"
      " state, created_by, created_at) VALUES(?,?,?,?,?,?,?,?,?,?)");
  q->bind(1, a.attachment_id).bind(2, a.account_id).bind(3, a.agent_id).bind(4, a.agent_name).bind(5, a.purpose);
  q->bind(6, a.provider).bind(7, a.native_session_id).bind(8, state_text(a.state)).bind(9, a.created_by).bind(10, a.created_at);
  q->run();
  return a;
}

std::vector<Attachment> Store::list_attachments(const Connection& caller, const std::optional<std::string>& agent_name) {
  std::optional<std::string> only_agent;
  if (agent_name) only_agent = require_agent(caller, *agent_name).agent_id;
  if (!caller.is_login()) {
    if (only_agent && only_agent != caller.agent_id)
      throw Error(ErrorCode::forbidden, "a child connection may list only its own agent's attachments");
    only_agent = caller.agent_id.value_or("");
  }
  std::vector<Attachment> out;
  Q q(*this, AW_ATTACHMENT_COLUMNS
      "WHERE account_id = ? AND (? = '' OR agent_id = ?) ORDER BY created_at DESC, rowid DESC LIMIT 500");
  const std::string filter = only_agent.value_or("");
  q->bind(1, caller.account_id).bind(2, filter).bind(3, filter);
  while (q->step()) out.push_back(read_attachment(*q));
  return out;
}

Attachment Store::get_attachment(const Connection& caller, const std::string& id) {
  auto a = attachment_by_id(id);
  if (!a || a->account_id != caller.account_id) throw Error(ErrorCode::not_found, "no attachment '" + id + "'");
  const auto agent = agent_by_id(a->agent_id, true);
  bool ok = false;
  if (!caller.is_login()) {
    ok = caller.agent_id && *caller.agent_id == a->agent_id;
  } else if (agent) {
    ok = allowed(caller, *agent) || caller.connection_id == a->created_by;
  }
  if (!ok) throw Error(ErrorCode::forbidden, "this connection is not allowed for '" + a->agent_name + "'");
  return *a;
}

Attachment Store::detach_attachment(const Connection& caller, const std::string& id) {
  Attachment a = get_attachment(caller, id);
  if (a.state == AttachmentState::current) {
    set_attachment_state(a.attachment_id, AttachmentState::detached, "detached");
    a.state = AttachmentState::detached;
  }
  return a;
}

std::vector<ReleaseItem> Store::release_check(const Attachment& att, const std::vector<std::string>& message_ids) {
  const bool current = att.state == AttachmentState::current;
  std::vector<ReleaseItem> out;
  for (const auto& id : message_ids) {
    ReleaseItem item{id, false, std::nullopt};
    const auto m = message_by_id(id);
    if (!current) {
      item.reason = "not_current";
    } else if (!m || m->account_id != att.account_id) {
      item.reason = "not_retained";
    } else if (m->recipient_agent_id != att.agent_id) {
      item.reason = "not_recipient";
    } else if (m->is_notice()) {
      item.releasable = true;  // R-D2: the server wrote it about the agent's own call; no connection to revoke
    } else {
      const auto sender = find_connection(m->sender_conn);
      bool authorised = sender && !sender->revoked;
      if (authorised && m->sender_agent_id) authorised = agent_by_id(*m->sender_agent_id).has_value();
      if (authorised) {
        item.releasable = true;
      } else {
        item.reason = "sender_unauthorised";
      }
    }
    out.push_back(std::move(item));
  }
  return out;
}

}  // namespace agentworks::server
