#include "store/agent_state.hpp"

#include "agentworks/error.hpp"
#include "store/crews_store.hpp"
#include "store/states.hpp"
#include "store/store.hpp"

namespace agentworks::server {
namespace {

std::int64_t cursor_value(const std::optional<std::string>& after) {
  if (!after || after->empty()) return 0;
  const std::string& a = *after;
  bool digits = a.size() > 1 && a.size() <= 19 && a[0] == 'c';
  for (std::size_t i = 1; digits && i < a.size(); ++i) digits = a[i] >= '0' && a[i] <= '9';
  if (!digits) throw Error(ErrorCode::bad_request, "after must be a next_after of a previous page (\"c<N>\")");
  return std::stoll(a.substr(1));
}

}  // namespace

AgentState agent_state(Store& store, const Connection& caller, const std::string& agent_name,
                       const std::optional<std::string>& after, int limit) {
  if (!caller.is_login())
    throw Error(ErrorCode::forbidden, "only the person's login sees an agent's conversations, not a chat's connection");
  AgentState out;
  if (agent_name.rfind("crew:", 0) == 0) {  // R-K1: a Crew's own agent, by its Crew's name
    const auto agent = own_crew_agent(store, caller, agent_name.substr(5));
    out.agent = agent.value_or(Agent{});
    if (!agent) out.agent.name = agent_name;
  } else {
    out.agent = store.require_agent(caller, agent_name);
  }
  if (const auto attachment_id = store.current_attachment_id(out.agent.agent_id))
    out.receiving = store.attachment_by_id(*attachment_id);
  const std::int64_t before = cursor_value(after);
  std::vector<std::pair<std::int64_t, std::string>> page;  // (rowid, inbox_id)
  {
    Q q(store,
        // The agent is the caller's; its inboxes include those another account started with a Crew's agent (R-K1).
        "SELECT rowid, inbox_id FROM conversations WHERE target_agent_id = ?"
        " AND (? = 0 OR rowid < ?) ORDER BY rowid DESC LIMIT ?");
    q->bind(1, out.agent.agent_id).bind(2, before).bind(3, before).bind(4, limit + 1);
    while (q->step()) page.emplace_back(q->int64(0), q->text(1));
  }
  if (static_cast<int>(page.size()) > limit) {
    page.pop_back();
    out.next_after = "c" + std::to_string(page.back().first);
  }
  for (const auto& [rowid, inbox_id] : page) {
    InboxState inbox;
    try {
      inbox.conversation = store.agent_inbox_info(out.agent.agent_id, inbox_id);
    } catch (const Error& e) {
      if (e.code() == ErrorCode::not_found) continue;  // removed past its retention
      throw;
    }
    const std::string& conversation_id = inbox.conversation.conversation_id;
    Q q(store,
        "SELECT message_id, direction, kind, state, reply_state, created_at, admitted_at, processed_at FROM messages"
        " WHERE conversation_id = ? ORDER BY inbox_seq DESC LIMIT ?");
    q->bind(1, conversation_id).bind(2, kStateRecords);
    while (q->step()) {
      DeliveryRecord r;
      r.message_id = q->text(0);
      r.direction = q->text(1);
      r.kind = q->opt_text(2).value_or("message");
      r.state = message_state_column(q->text(3));
      r.reply_state = q->opt_text(4);
      r.created_at = q->int64(5);
      r.admitted_at = q->opt_int64(6);
      r.processed_at = q->opt_int64(7);
      inbox.deliveries.push_back(std::move(r));
    }
    out.inboxes.push_back(std::move(inbox));
  }
  return out;
}

}  // namespace agentworks::server
