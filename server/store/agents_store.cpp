// Named agents: registration, allow-lists, caps, unregistering (R-M4, R-M5, R-M6, R-M8).
#include <algorithm>

#include "agentworks/error.hpp"
#include "agentworks/random.hpp"
#include "agentworks/validation.hpp"
#include "clock.hpp"
#include "store/store.hpp"

namespace agentworks::server {
namespace {

// The columns read_agent() reads, in its order.
#define AW_AGENT_COLUMNS "agent_id, account_id, name, purpose, provider, created_at, communication, nudge, crew_id"

Agent read_agent(db::Statement& s) {
  Agent a;
  a.agent_id = s.text(0);
  a.account_id = s.text(1);
  a.name = s.text(2);
  a.purpose = s.text(3);
  a.provider = s.text(4);
  a.created_at = s.int64(5);
  if (auto mode = s.opt_text(6)) a.communication = std::move(*mode);
  a.nudge = s.opt_text(7) != std::optional<std::string>("off");
  a.crew_id = s.opt_text(8);
  return a;
}

void check_name(const std::string& name) {
  if (!valid_agent_name(name))
    throw Error(ErrorCode::invalid_name,
                "agent names are 1-64 ASCII letters, digits, '.', '_' or '-', starting with a letter or digit");
}

}  // namespace

std::optional<Agent> Store::find_agent(const std::string& account_id, const std::string& name) {
  Q q(*this,
      "SELECT " AW_AGENT_COLUMNS " FROM agents"
      " WHERE account_id = ? AND name_fold = ? AND removed = 0 AND crew_id IS NULL");
  q->bind(1, account_id).bind(2, fold_name(name));
  if (!q->step()) return std::nullopt;
  return read_agent(*q);
}

std::optional<Agent> Store::agent_by_id(const std::string& agent_id, bool include_removed) {
  Q q(*this, "SELECT " AW_AGENT_COLUMNS ", removed FROM agents"
             " WHERE agent_id = ?");
  q->bind(1, agent_id);
  if (!q->step()) return std::nullopt;
  if (!include_removed && q->int64(9) != 0) return std::nullopt;
  return read_agent(*q);
}

Agent Store::set_talk(const Connection& caller, const std::string& name, const AgentTalk& talk) {
  if (talk.communication && *talk.communication != "explicit" && *talk.communication != "direct")
    throw Error(ErrorCode::bad_request, "communication must be \"explicit\" or \"direct\"");
  Agent agent = require_agent(caller, name);
  if (talk.communication) {
    Q q(*this, "UPDATE agents SET communication = ? WHERE agent_id = ?");
    q->bind(1, *talk.communication == "explicit" ? std::optional<std::string>() : talk.communication);
    q->bind(2, agent.agent_id).run();
    agent.communication = *talk.communication;
  }
  if (talk.nudge) {
    Q q(*this, "UPDATE agents SET nudge = ? WHERE agent_id = ?");
    q->bind(1, *talk.nudge ? std::optional<std::string>() : std::optional<std::string>("off"));
    q->bind(2, agent.agent_id).run();
    agent.nudge = *talk.nudge;
  }
  return agent;
}

Agent Store::require_agent(const Connection& caller, const std::string& name) {
  check_name(name);
  auto agent = find_agent(caller.account_id, name);
  if (!agent) throw Error(ErrorCode::not_found, "no agent named '" + name + "' is registered in this account");
  return *agent;
}

bool Store::allowed(const Connection& caller, const Agent& agent) {
  if (caller.account_id != agent.account_id) return false;
  if (!caller.is_login()) return caller.agent_id && *caller.agent_id == agent.agent_id;
  Q q(*this, "SELECT 1 FROM agent_allow WHERE agent_id = ? AND connection_id = ?");
  q->bind(1, agent.agent_id).bind(2, caller.connection_id);
  return q->step();
}

Agent Store::require_allowed(const Connection& caller, const std::string& name) {
  Agent agent = require_agent(caller, name);
  if (!allowed(caller, agent))
    throw Error(ErrorCode::forbidden, "this connection is not allowed to act as '" + agent.name +
                                          "'; ask a connection in its allow-list to add it");
  return agent;
}

std::pair<Agent, bool> Store::register_agent(const Connection& caller, const std::string& name,
                                             const std::optional<std::string>& purpose,
                                             const std::optional<std::string>& provider,
                                             const std::optional<std::vector<std::string>>& allowed_ids) {
  check_name(name);
  std::vector<std::string> list;
  if (allowed_ids) {
    for (const auto& id : *allowed_ids) {
      auto c = find_connection(id);
      if (!c || c->account_id != caller.account_id || c->revoked)
        throw Error(ErrorCode::bad_request, "allowed_connection_ids: '" + id + "' is not a live connection of this account");
      if (std::find(list.begin(), list.end(), id) == list.end()) list.push_back(id);
    }
    if (std::find(list.begin(), list.end(), caller.connection_id) == list.end()) list.push_back(caller.connection_id);
  }

  auto existing = find_agent(caller.account_id, name);
  bool created = false;
  Agent agent;
  if (existing) {
    if (!allowed(caller, *existing))
      throw Error(ErrorCode::forbidden, "'" + existing->name + "' is registered and this connection is not in its allow-list");
    agent = *existing;
    if (purpose) agent.purpose = *purpose;
    if (provider) agent.provider = *provider;
    Q q(*this, "UPDATE agents SET purpose = ?, provider = ? WHERE agent_id = ?");
    q->bind(1, agent.purpose).bind(2, agent.provider).bind(3, agent.agent_id).run();
  } else {
    {
      Q q(*this, "SELECT COUNT(*) FROM agents WHERE account_id = ? AND removed = 0 AND crew_id IS NULL");
      q->bind(1, caller.account_id);
      q->step();
      if (q->int64(0) >= limits_.max_agents_per_account)
        throw Error(ErrorCode::limit_reached, "this account already has " + std::to_string(limits_.max_agents_per_account) +
                                                  " registered names; unregister one first");
    }
    {
      Q q(*this, "SELECT COUNT(*) FROM agents WHERE removed = 0 AND crew_id IS NULL");
      q->step();
      if (q->int64(0) >= limits_.max_agents_total)
        throw Error(ErrorCode::limit_reached, "the server holds its maximum of registered names; unregister one first");
    }
    created = true;
    agent.agent_id = new_id("agt");
    agent.account_id = caller.account_id;
    agent.name = name;
    agent.purpose = purpose.value_or("");
    agent.provider = provider.value_or("");
    agent.created_at = now();
    Q q(*this,
        "INSERT INTO agents(agent_id, account_id, name, name_fold, purpose, provider, created_at) VALUES(?,?,?,?,?,?,?)");
    q->bind(1, agent.agent_id).bind(2, agent.account_id).bind(3, agent.name).bind(4, fold_name(name));
    q->bind(5, agent.purpose).bind(6, agent.provider).bind(7, agent.created_at).run();
    if (!allowed_ids) list.push_back(caller.connection_id);
  }
  if (allowed_ids || created) {
    {
      Q q(*this,
          "DELETE FROM agent_allow WHERE agent_id = ? AND connection_id IN"
          " (SELECT connection_id FROM connections WHERE kind = 'login')");
      q->bind(1, agent.agent_id).run();
    }
    for (const auto& id : list) {
      Q q(*this, "INSERT INTO agent_allow(agent_id, connection_id) VALUES(?,?) ON CONFLICT DO NOTHING");
      q->bind(1, agent.agent_id).bind(2, id).run();
    }
  }
  return {agent, created};
}

std::vector<Agent> Store::list_agents(const Connection& caller) {
  std::vector<Agent> out;
  Q q(*this,
      "SELECT " AW_AGENT_COLUMNS " FROM agents"
      " WHERE account_id = ? AND removed = 0 AND crew_id IS NULL ORDER BY name_fold");
  q->bind(1, caller.account_id);
  while (q->step()) out.push_back(read_agent(*q));
  return out;
}

std::vector<std::string> Store::allow_list(const std::string& agent_id) {
  std::vector<std::string> out;
  Q q(*this,
      "SELECT l.connection_id FROM agent_allow l JOIN connections c ON c.connection_id = l.connection_id"
      " WHERE l.agent_id = ? AND c.revoked = 0 ORDER BY c.created_at, c.rowid");
  q->bind(1, agent_id);
  while (q->step()) out.push_back(q->text(0));
  return out;
}

std::string Store::unregister_agent(const Connection& caller, const std::string& name) {
  const Agent agent = require_allowed(caller, name);
  {
    Q q(*this, "UPDATE agents SET removed = 1 WHERE agent_id = ?");
    q->bind(1, agent.agent_id).run();
  }
  {
    Q q(*this, "DELETE FROM agent_allow WHERE agent_id = ?");
    q->bind(1, agent.agent_id).run();
  }
  detach_attachments_of_agent(agent.agent_id);
  // Child connections act only as their agent; the identity is gone, so are they.
  std::vector<std::string> children;
  {
    Q q(*this, "SELECT connection_id FROM connections WHERE agent_id = ? AND revoked = 0");
    q->bind(1, agent.agent_id);
    while (q->step()) children.push_back(q->text(0));
  }
  for (const auto& id : children) {
    Q q(*this, "UPDATE connections SET revoked = 1 WHERE connection_id = ?");
    q->bind(1, id).run();
    request_events_.revoked_connections.push_back(id);
  }
  return agent.name;
}

std::optional<Agent> Store::find_crew_agent(const std::string& crew_id) {
  Q q(*this, "SELECT " AW_AGENT_COLUMNS " FROM agents WHERE crew_id = ? AND removed = 0");
  q->bind(1, crew_id);
  if (!q->step()) return std::nullopt;
  return read_agent(*q);
}

Agent Store::crew_agent(const std::string& account_id, const std::string& crew_id, const std::string& crew_name) {
  if (auto found = find_crew_agent(crew_id)) return *found;
  Agent agent;
  agent.agent_id = new_id("agt");
  agent.account_id = account_id;
  agent.name = "crew:" + crew_name;
  agent.provider = "crew";
  agent.created_at = now();
  agent.crew_id = crew_id;
  // Folded under the Crew's id, not its name: a later Crew of the same name gets an agent of its own.
  Q q(*this,
      "INSERT INTO agents(agent_id, account_id, name, name_fold, purpose, provider, created_at, crew_id)"
      " VALUES(?,?,?,?,?,?,?,?)");
  q->bind(1, agent.agent_id).bind(2, account_id).bind(3, agent.name).bind(4, "crew:" + crew_id);
  q->bind(5, agent.purpose).bind(6, agent.provider).bind(7, agent.created_at).bind(8, crew_id).run();
  return agent;
}

}  // namespace agentworks::server
