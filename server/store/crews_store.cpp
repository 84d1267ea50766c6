#include "store/crews_store.hpp"

#include "agentworks/error.hpp"
#include "agentworks/path_inside.hpp"
#include "agentworks/random.hpp"
#include "agentworks/validation.hpp"
#include "clock.hpp"
#include "store/store.hpp"

namespace agentworks::server {
namespace {

// The columns crew_row reads, in its order.
#define AW_CREW_SELECT                                                                                   \
  "SELECT crew_id, account_id, name, dir, declaration, created_at, reloaded_at, last_sweep_at, allowance," \
  " messaging, runner_host, runner_conn, runner_since, runner_seen_at FROM crews"

Crew crew_row(db::Statement& s) {
  Crew c;
  c.crew_id = s.text(0);
  c.account_id = s.text(1);
  c.name = s.text(2);
  c.dir = s.text(3);
  c.declaration_json = s.text(4);
  c.created_at = s.int64(5);
  c.reloaded_at = s.int64(6);
  c.last_sweep_at = s.int64(7);
  c.allowance_json = s.text(8);
  if (auto set = s.opt_text(9)) c.messaging_set = *set == "on";
  c.runner_host = s.opt_text(10);
  c.runner_conn = s.opt_text(11);
  c.runner_since = s.opt_int64(12).value_or(0);
  c.runner_seen_at = s.opt_int64(13).value_or(0);
  return c;
}

bool nested(const std::string& a, const std::string& b) { return a == b || path_inside(a, b) || path_inside(b, a); }

}  // namespace

Crew register_crew(Store& store, const Connection& caller, const std::string& name, const std::string& dir,
                   const std::string& declaration_json, const std::string& allowance_json,
                   const std::optional<std::string>& runner_host) {
  if (!valid_agent_name(name))
    throw Error(ErrorCode::invalid_name, "Crew name '" + name + "' breaks the name rules: 1-64 letters, digits, "
                                         "'.', '_', '-', starting with a letter or digit");
  {
    // Folders of one computer only: the server's own, or one serving computer's (R-R1).
    Q q(store, "SELECT name, dir, runner_host FROM crews WHERE removed = 0");
    while (q->step()) {
      if (q->opt_text(2) == runner_host && nested(q->text(1), dir))
        throw Error(ErrorCode::conflict, "folder " + dir + " is (or is inside, or holds) the folder of Crew '" +
                                             q->text(0) + "'; a Crew folder cannot hold another Crew");
    }
  }
  {
    Q q(store, "SELECT 1 FROM crews WHERE account_id = ? AND name_fold = ? AND removed = 0");
    q->bind(1, caller.account_id).bind(2, fold_name(name));
    if (q->step())
      throw Error(ErrorCode::conflict, "a Crew named '" + name + "' exists; unregister it first or pick another name");
  }
  {
    Q q(store, "SELECT COUNT(*) FROM crews WHERE account_id = ? AND removed = 0");
    q->bind(1, caller.account_id);
    q->step();
    if (q->int64(0) >= kMaxCrewsPerAccount)
      throw Error(ErrorCode::limit_reached, "this account has 100 Crews; unregister one first");
  }
  Crew c;
  c.crew_id = new_id("crw");
  c.account_id = caller.account_id;
  c.name = name;
  c.dir = dir;
  c.declaration_json = declaration_json;
  c.allowance_json = allowance_json;
  c.created_at = c.reloaded_at = now();
  c.runner_host = runner_host;
  if (runner_host) c.runner_since = c.created_at;
  Q q(store,
      "INSERT INTO crews(crew_id, account_id, name, name_fold, dir, declaration, created_at, reloaded_at, allowance,"
      " runner_host, runner_since) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  q->bind(1, c.crew_id).bind(2, c.account_id).bind(3, c.name).bind(4, fold_name(name)).bind(5, dir);
  q->bind(6, declaration_json).bind(7, c.created_at).bind(8, c.reloaded_at).bind(9, allowance_json);
  q->bind(10, runner_host).bind(11, runner_host ? std::optional<std::int64_t>(c.runner_since) : std::nullopt).run();
  return c;
}

std::optional<Crew> crew_by_id(Store& store, const std::string& crew_id) {
  Q q(store,
      AW_CREW_SELECT
      " WHERE crew_id = ? AND removed = 0");
  q->bind(1, crew_id);
  if (!q->step()) return std::nullopt;
  return crew_row(*q);
}

std::optional<Crew> crew_for_caller(Store& store, const Connection& caller, const std::string& name_or_id) {
  if (name_or_id.rfind("crw_", 0) == 0) return crew_by_id(store, name_or_id);
  Q q(store,
      AW_CREW_SELECT
      " WHERE account_id = ? AND name_fold = ? AND removed = 0");
  q->bind(1, caller.account_id).bind(2, fold_name(name_or_id));
  if (!q->step()) return std::nullopt;
  return crew_row(*q);
}

Crew own_crew(Store& store, const Connection& caller, const std::string& name_or_id) {
  auto c = crew_for_caller(store, caller, name_or_id);
  if (!c || c->account_id != caller.account_id)
    throw Error(ErrorCode::not_found, "no Crew '" + name_or_id + "' in this account; `agentworks crews list` shows them");
  return *c;
}

std::optional<Agent> own_crew_agent(Store& store, const Connection& caller, const std::string& crew_name) {
  const auto crew = crew_for_caller(store, caller, crew_name);
  if (!crew || crew->account_id != caller.account_id)
    throw Error(ErrorCode::not_found, "no Crew '" + crew_name + "' in this account; `agentworks crews list` shows them");
  auto agent = store.find_crew_agent(crew->crew_id);
  if (agent) agent->name = "crew:" + crew->name;
  return agent;
}

std::vector<Crew> list_crews(Store& store, const std::string& account_id) {
  std::vector<Crew> out;
  Q q(store,
      AW_CREW_SELECT
      " WHERE account_id = ? AND removed = 0 ORDER BY name_fold");
  q->bind(1, account_id);
  while (q->step()) out.push_back(crew_row(*q));
  return out;
}

void set_declaration(Store& store, const std::string& crew_id, const std::string& declaration_json) {
  Q q(store, "UPDATE crews SET declaration = ?, reloaded_at = ? WHERE crew_id = ?");
  q->bind(1, declaration_json).bind(2, now()).bind(3, crew_id).run();
}

void set_served_from(Store& store, const std::string& crew_id, const std::string& host, const std::string& dir) {
  Q q(store, "UPDATE crews SET runner_host = ?, dir = ? WHERE crew_id = ?");
  q->bind(1, host).bind(2, dir).bind(3, crew_id).run();
}

void set_allowance(Store& store, const std::string& crew_id, const std::string& allowance_json) {
  Q q(store, "UPDATE crews SET allowance = ? WHERE crew_id = ?");
  q->bind(1, allowance_json).bind(2, crew_id).run();
}

void set_messaging(Store& store, const std::string& crew_id, std::optional<bool> messaging) {
  Q q(store, "UPDATE crews SET messaging = ? WHERE crew_id = ?");
  q->bind(1, messaging ? std::optional<std::string>(*messaging ? "on" : "off") : std::nullopt).bind(2, crew_id).run();
}

void remove_crew(Store& store, const std::string& crew_id) {
  if (running_calls(store, crew_id) > 0)
    throw Error(ErrorCode::busy, "this Crew has running calls; wait for them to finish, then unregister it");
  if (running_turns(store, crew_id) > 0)
    throw Error(ErrorCode::busy, "this Crew's agent is answering a conversation; wait for its turn to end, then "
                                 "unregister it");
  Q q(store, "UPDATE crews SET removed = 1 WHERE crew_id = ?");
  q->bind(1, crew_id).run();
}

void set_last_sweep(Store& store, const std::string& crew_id, std::int64_t at) {
  Q q(store, "UPDATE crews SET last_sweep_at = ? WHERE crew_id = ?");
  q->bind(1, at).bind(2, crew_id).run();
}

int running_calls(Store& store, const std::string& crew_id) {
  Q q(store, "SELECT COUNT(*) FROM calls WHERE crew_id = ? AND status IN ('running', 'waiting_input')");
  q->bind(1, crew_id);
  q->step();
  return static_cast<int>(q->int64(0));
}

int running_turns(Store& store, const std::string& crew_id) {
  Q q(store, "SELECT COUNT(*) FROM crew_sessions WHERE crew_id = ? AND turn_state = 'running'");
  q->bind(1, crew_id);
  q->step();
  return static_cast<int>(q->int64(0));
}

}  // namespace agentworks::server
