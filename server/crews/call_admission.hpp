// Admitting a function call (R-F1, R-F2, R-F4): the one operation below the handlers that decides whether a call
// exists, as Store::send decides for a message. The handler parses the request and answers; the rules live here.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "declaration/declaration.hpp"
#include "declaration/schema_check.hpp"
#include "store/function_records.hpp"
#include "store/records.hpp"

namespace agentworks::server {
class Store;
}

namespace agentworks::server::functions {

// The server's side of function calls builds on the execution library (functions/).
using namespace agentworks::functions;

// A stored declaration, parsed, with each function's inputs schema compiled: made once per stored text (a
// register or reload, on any replica) and shared by every call until the text changes.
struct ParsedDeclaration {
  std::string text;  // the stored form it was parsed from
  Declaration declaration;
  std::vector<std::shared_ptr<const CompiledSchema>> inputs;  // by function index
};
std::shared_ptr<const ParsedDeclaration> parsed_declaration(const Crew& crew);

// Who is told of a call's questions and outcome (R-D2). A chat's call tells its own agent unless it says no; a
// login connection names an agent of its account ("agent:NAME") or tells nobody.
struct NotifyRequest {
  enum class Kind { unset, no, yes, agent } kind = Kind::unset;
  std::string agent_name;  // Kind::agent
};

struct CallRequest {
  std::string crew;  // a Crew name of the caller's account, or a crw_ id
  std::string function;
  std::string arguments_json;  // compact JSON text
  std::optional<std::string> submission_id;
  NotifyRequest notify;
};

struct AdmittedCall {
  Crew crew;
  CallRow call;
  bool created = false;  // false: the call an earlier request with the same submission id made
};

// The call, inserted when every check passed: the Crew admits the caller, the function is declared and the caller
// may call it, the arguments satisfy its inputs, a repeated submission id names the same work (else `conflict`),
// and the Crew has a free running slot (else `busy`; calls are never queued). A chat (a child connection) needs
// the person's grant for the Crew and is the call's caller of record (R-D1); the agent to notify is resolved
// here (R-D2). Anything refused writes nothing.
// An execution (R-D4) calls as its Crew's owner account, with its call as the caller of record: nesting is
// bounded (kMaxCallDepth), a function of an open ancestor is refused (a cycle), a repeat without a submission id is
// the same call when its (parent, Crew, function, arguments) are, and it may not ask for notices (it polls).
AdmittedCall admit_call(Store& store, const Connection& caller, const CallRequest& request);

inline constexpr std::int64_t kMaxCallDepth = 4;  // a person's call is level 1; the fifth level is refused

}  // namespace agentworks::server::functions
