// Who may see a Crew's functions, call them and read a call (R-F4): the owner's account, accounts and agents named
// in a function's allowed_callers (an owner's agent named there narrows the owner's chats to those named), and for a call only its caller's account and the owner. Anyone else is told
// `not_found`, exactly as for an id that does not exist. A chat's connection (a child, bound to an agent) reaches
// a Crew only through the person's grant to its agent, and reads only the calls its agent made (R-D1).
#pragma once

#include <string>

#include "store/function_records.hpp"
#include "store/records.hpp"

namespace agentworks::server {
class Store;
}

namespace agentworks::functions {
struct FunctionDecl;
}

namespace agentworks::server::functions {

// The server's side of function calls builds on the execution library (functions/).
using namespace agentworks::functions;

bool may_call(const Connection& caller, const Crew& crew, const FunctionDecl& f);
// The Crew if the caller may call at least one of its functions; not_found otherwise, and for a child whose
// agent holds no grant for it, forbidden naming the person's command.
Crew admitted_crew(Store& store, const Connection& caller, const std::string& name_or_id);
// A Crew the person may grant `agent` (a login's act): one the account or that agent's chat may call.
Crew grantable_crew(Store& store, const Connection& login, const Agent& agent, const std::string& name_or_id);
// The call if the caller's account made it or owns its Crew; not_found otherwise.
CallRow visible_call(Store& store, const Connection& caller, const std::string& call_id);

}  // namespace agentworks::server::functions
