// Accounts and connections: login tokens, child connections, revocation (R-B19, R-B20).
#include "agentworks/error.hpp"
#include "agentworks/random.hpp"
#include "agentworks/sha256.hpp"
#include "agentworks/validation.hpp"
#include "clock.hpp"
#include "store/store.hpp"

namespace agentworks::server {
namespace {

Connection read_connection(db::Statement& s) {
  Connection c;
  c.connection_id = s.text(0);
  c.account_id = s.text(1);
  c.account_name = s.text(2);
  c.kind = s.text(3);
  c.agent_id = s.opt_text(4);
  c.agent_name = s.opt_text(5);
  c.parent_id = s.opt_text(6);
  c.label = s.text(7);
  c.created_at = s.int64(8);
  c.revoked = s.int64(9) != 0;
  return c;
}

std::string new_token() { return "awt_" + random_hex(32); }

}  // namespace

std::optional<std::string> Store::ensure_owner() {
  {
    Q q(*this, "SELECT 1 FROM accounts WHERE name_fold = 'owner'");
    if (q->step()) return std::nullopt;
  }
  return add_account("owner");
}

std::string Store::add_account(const std::string& name) {
  if (!valid_agent_name(name))
    throw Error(ErrorCode::invalid_name, "account name must be 1-64 ASCII letters, digits, '.', '_' or '-'");
  {
    Q q(*this, "SELECT 1 FROM accounts WHERE name_fold = ?");
    q->bind(1, fold_name(name));
    if (q->step()) throw Error(ErrorCode::conflict, "account '" + name + "' already exists; pick another name");
  }
  const std::string account_id = new_id("acc");
  const std::string token = new_token();
  const std::int64_t t = now();
  {
    Q q(*this, "INSERT INTO accounts(account_id, name, name_fold, created_at) VALUES(?,?,?,?)");
    q->bind(1, account_id).bind(2, name).bind(3, fold_name(name)).bind(4, t).run();
  }
  {
    Q q(*this,
        "INSERT INTO connections(connection_id, account_id, kind, agent_id, parent_id, label, token_hash, created_at)"
        " VALUES(?,?,'login',NULL,NULL,'login',?,?)");
    q->bind(1, new_id("conn")).bind(2, account_id).bind(3, sha256_hex(token)).bind(4, t).run();
  }
  return token;
}

std::optional<Connection> Store::authenticate(const std::string& token) {
  Q q(*this,
      "SELECT c.connection_id, c.account_id, a.name, c.kind, c.agent_id, g.name, c.parent_id, c.label,"
      " c.created_at, c.revoked FROM connections c JOIN accounts a ON a.account_id = c.account_id"
      " LEFT JOIN agents g ON g.agent_id = c.agent_id WHERE c.token_hash = ?");
  q->bind(1, sha256_hex(token));
  if (!q->step()) return std::nullopt;
  Connection c = read_connection(*q);
  if (c.revoked) return std::nullopt;
  return c;
}

std::optional<Connection> Store::find_connection(const std::string& id) {
  Q q(*this,
      "SELECT c.connection_id, c.account_id, a.name, c.kind, c.agent_id, g.name, c.parent_id, c.label,"
      " c.created_at, c.revoked FROM connections c JOIN accounts a ON a.account_id = c.account_id"
      " LEFT JOIN agents g ON g.agent_id = c.agent_id WHERE c.connection_id = ?");
  q->bind(1, id);
  if (!q->step()) return std::nullopt;
  return read_connection(*q);
}

NewConnection Store::create_child(const Connection& caller, const std::string& agent_name, const std::string& label,
                                  bool supersede_siblings) {
  const Agent agent = require_allowed(caller, agent_name);
  if (supersede_siblings) {
    std::vector<std::string> siblings;
    {
      Q q(*this, "SELECT connection_id FROM connections WHERE parent_id = ? AND agent_id = ? AND revoked = 0");
      q->bind(1, caller.connection_id).bind(2, agent.agent_id);
      while (q->step()) siblings.push_back(q->text(0));
    }
    for (const auto& id : siblings) revoke_connection(caller, id);
  }
  NewConnection out;
  out.token = new_token();
  Connection& c = out.connection;
  c.connection_id = new_id("conn");
  c.account_id = caller.account_id;
  c.account_name = caller.account_name;
  c.kind = "child";
  c.agent_id = agent.agent_id;
  c.agent_name = agent.name;
  c.parent_id = caller.connection_id;
  c.label = label;
  c.created_at = now();
  {
    Q q(*this,
        "INSERT INTO connections(connection_id, account_id, kind, agent_id, parent_id, label, token_hash, created_at)"
        " VALUES(?,?,'child',?,?,?,?,?)");
    q->bind(1, c.connection_id).bind(2, c.account_id).bind(3, agent.agent_id).bind(4, caller.connection_id);
    q->bind(5, label).bind(6, sha256_hex(out.token)).bind(7, c.created_at).run();
  }
  {
    Q q(*this, "INSERT INTO agent_allow(agent_id, connection_id) VALUES(?,?) ON CONFLICT DO NOTHING");
    q->bind(1, agent.agent_id).bind(2, c.connection_id).run();
  }
  return out;
}

NewConnection Store::create_login(const Connection& caller, const std::string& label) {
  NewConnection out;
  out.token = new_token();
  Connection& c = out.connection;
  c.connection_id = new_id("conn");
  c.account_id = caller.account_id;
  c.account_name = caller.account_name;
  c.kind = "login";
  c.label = label;
  c.created_at = now();
  Q q(*this,
      "INSERT INTO connections(connection_id, account_id, kind, agent_id, parent_id, label, token_hash, created_at)"
      " VALUES(?,?,'login',NULL,NULL,?,?,?)");
  q->bind(1, c.connection_id).bind(2, c.account_id).bind(3, label).bind(4, sha256_hex(out.token)).bind(5, c.created_at);
  q->run();
  return out;
}

std::vector<Connection> Store::list_connections(const Connection& caller) {
  std::vector<Connection> out;
  Q q(*this,
      "SELECT c.connection_id, c.account_id, a.name, c.kind, c.agent_id, g.name, c.parent_id, c.label,"
      " c.created_at, c.revoked FROM connections c JOIN accounts a ON a.account_id = c.account_id"
      " LEFT JOIN agents g ON g.agent_id = c.agent_id WHERE c.account_id = ? ORDER BY c.created_at, c.rowid");
  q->bind(1, caller.account_id);
  while (q->step()) out.push_back(read_connection(*q));
  return out;
}

int Store::revoke_connection(const Connection& caller, const std::string& id) {
  const auto target = find_connection(id);
  if (!target || target->account_id != caller.account_id)
    throw Error(ErrorCode::not_found, "no connection '" + id + "' in this account");
  if (!caller.is_login() && id != caller.connection_id)
    throw Error(ErrorCode::forbidden, "a child connection may revoke only itself");
  std::vector<std::string> ids{id};
  {
    Q q(*this, "SELECT connection_id FROM connections WHERE parent_id = ? AND revoked = 0");
    q->bind(1, id);
    while (q->step()) ids.push_back(q->text(0));
  }
  int children = 0;
  for (const auto& cid : ids) {
    Q q(*this, "UPDATE connections SET revoked = 1 WHERE connection_id = ? AND revoked = 0");
    q->bind(1, cid).run();
    if (cid != id && sql_changes() > 0) ++children;
    revoke_attachments_of(cid);
    request_events_.revoked_connections.push_back(cid);
  }
  return children;
}

}  // namespace agentworks::server
