#include "crews/access.hpp"

#include <algorithm>

#include "agentworks/error.hpp"
#include "crews/declaration.hpp"
#include "store/calls_store.hpp"
#include "store/crews_store.hpp"

namespace agentworks::server::functions {

bool may_call(const Connection& caller, const Crew& crew, const FunctionDecl& f) {
  if (caller.account_id == crew.account_id) return true;
  return std::find(f.allowed_callers.begin(), f.allowed_callers.end(), caller.account_id) != f.allowed_callers.end();
}

Crew admitted_crew(Store& store, const Connection& caller, const std::string& name_or_id) {
  const auto crew = crew_for_caller(store, caller, name_or_id);
  if (crew) {
    if (crew->account_id == caller.account_id) return *crew;
    for (const auto& f : declaration_from_json(crew->declaration_json).functions)
      if (may_call(caller, *crew, f)) return *crew;
  }
  throw Error(ErrorCode::not_found, "no Crew '" + name_or_id +
                                        "' that you may call; a Crew of another account is named by its crew_id");
}

CallRow visible_call(Store& store, const Connection& caller, const std::string& call_id) {
  const auto call = call_by_id(store, call_id);
  if (!call || (caller.account_id != call->caller_account && caller.account_id != call->crew_account))
    throw Error(ErrorCode::not_found, "no call " + call_id + " that you may read");
  return *call;
}

}  // namespace agentworks::server::functions
