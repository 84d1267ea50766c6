#include "crews/access.hpp"

#include <algorithm>

#include "agentworks/error.hpp"
#include "declaration/declaration.hpp"
#include "store/calls_store.hpp"
#include "store/crews_store.hpp"
#include "store/grants_store.hpp"
#include "agentworks/validation.hpp"

namespace agentworks::server::functions {

bool may_call(const Connection& caller, const Crew& crew, const FunctionDecl& f) {
  const bool chat = !caller.is_login() && !caller.is_execution() && !caller.is_turn();
  const std::string agent = fold_name(caller.agent_name.value_or(""));
  bool owner_names_agents = false;
  for (const auto& entry : f.allowed_callers) {
    const auto allowed = parse_allowed_caller(entry);
    if (!allowed) continue;
    const std::string account = allowed->account_id.empty() ? crew.account_id : allowed->account_id;
    if (!allowed->agent_name) {
      if (account == caller.account_id) return true;
      continue;
    }
    if (account == crew.account_id) owner_names_agents = true;
    if (chat && account == caller.account_id && fold_name(*allowed->agent_name) == agent) return true;
  }
  // R-D1: naming agents of the owner's account narrows the owner's chats to those agents.
  return caller.account_id == crew.account_id && !(chat && owner_names_agents);
}

namespace {

bool granted(const FunctionGrant& grant, const Crew& crew) {
  if (grant.all) return true;
  for (const auto& entry : grant.crews)
    if (entry == crew.crew_id || fold_name(entry) == fold_name(crew.name)) return true;
  return false;
}

// R-D1: the person's grant to the chat's agent must name the Crew (or be `all`).
Crew with_grant(Store& store, const Connection& caller, const Crew& crew) {
  if (caller.is_login() || caller.is_execution() || caller.is_turn()) return crew;
  const std::string agent = caller.agent_name.value_or("");
  if (granted(function_grant(store, caller.account_id, agent), crew)) return crew;
  throw Error(ErrorCode::forbidden,
              "agent:" + agent + " may not use the functions of Crew '" + crew.name +
                  "': the person grants it in a terminal with `agentworks agents grant " + agent + " --functions " +
                  (crew.account_id == caller.account_id ? crew.name : crew.crew_id) + "`");
}

}  // namespace

namespace {

// The Crew if `caller` may call at least one of its functions (before any grant).
Crew callable_crew(Store& store, const Connection& caller, const std::string& name_or_id) {
  const auto crew = crew_for_caller(store, caller, name_or_id);
  if (crew) {
    if (crew->account_id == caller.account_id) return *crew;
    for (const auto& f : declaration_from_json(crew->declaration_json).functions)
      if (may_call(caller, *crew, f)) return *crew;
  }
  throw Error(ErrorCode::not_found, "no Crew '" + name_or_id +
                                        "' that you may call; a Crew of another account is named by its crew_id");
}

}  // namespace

Crew admitted_crew(Store& store, const Connection& caller, const std::string& name_or_id) {
  return with_grant(store, caller, callable_crew(store, caller, name_or_id));
}

Crew grantable_crew(Store& store, const Connection& login, const Agent& agent, const std::string& name_or_id) {
  Connection chat = login;
  chat.kind = "child";
  chat.agent_id = agent.agent_id;
  chat.agent_name = agent.name;
  try {
    return callable_crew(store, login, name_or_id);
  } catch (const Error&) {
    return callable_crew(store, chat, name_or_id);  // admitted by name only (agent:NAME@acc_…)
  }
}

CallRow visible_call(Store& store, const Connection& caller, const std::string& call_id) {
  const auto call = call_by_id(store, call_id);
  bool visible = false;
  if (call && caller.is_login())
    visible = caller.account_id == call->caller_account || caller.account_id == call->crew_account;
  else if (call && caller.is_execution())
    visible = call->parent_call_id == caller.connection_id;  // R-D4: only what the execution started
  else if (call && caller.is_turn())
    visible = !call->parent_call_id && call->caller_conn == caller.connection_id;  // what the conversation started
  else if (call)
    visible = caller.agent_id && call->caller_agent_id == caller.agent_id;
  if (!visible) throw Error(ErrorCode::not_found, "no call " + call_id + " that you may read");
  return *call;
}

}  // namespace agentworks::server::functions
