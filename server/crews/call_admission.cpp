#include "crews/call_admission.hpp"

#include <unordered_map>

#include "agentworks/error.hpp"
#include "agentworks/random.hpp"
#include "agentworks/sha256.hpp"
#include "agentworks/utc_time.hpp"
#include "agentworks/validation.hpp"
#include "crews/access.hpp"
#include "store/calls_store.hpp"
#include "store/crews_store.hpp"
#include "store/runners_store.hpp"
#include "store/store.hpp"

namespace agentworks::server::functions {
namespace {

// One entry per Crew seen; a Crew's entry is replaced when its stored text differs. Bounded: past the limit the
// cache starts over (a parse per Crew again), never grows without end.
constexpr std::size_t kMaxCachedDeclarations = 1024;

std::unordered_map<std::string, std::shared_ptr<const ParsedDeclaration>>& cache() {
  static std::unordered_map<std::string, std::shared_ptr<const ParsedDeclaration>> by_crew;
  return by_crew;
}

}  // namespace

std::shared_ptr<const ParsedDeclaration> parsed_declaration(const Crew& crew) {
  auto& by_crew = cache();
  if (const auto it = by_crew.find(crew.crew_id); it != by_crew.end() && it->second->text == crew.declaration_json)
    return it->second;
  auto parsed = std::make_shared<ParsedDeclaration>();
  parsed->text = crew.declaration_json;
  parsed->declaration = declaration_from_json(crew.declaration_json);
  parsed->inputs.reserve(parsed->declaration.functions.size());
  for (const auto& f : parsed->declaration.functions) parsed->inputs.push_back(CompiledSchema::compile(f.inputs_json));
  if (by_crew.size() >= kMaxCachedDeclarations) by_crew.clear();
  by_crew[crew.crew_id] = parsed;
  return parsed;
}

namespace {

// The agent told of the call's questions and outcome, if any (R-D2). A Crew agent's turn is told by default, in
// its conversation: the outcome starts a turn there (R-K2).
std::optional<std::string> notify_agent(Store& store, const Connection& caller, const NotifyRequest& notify) {
  using Kind = NotifyRequest::Kind;
  if (caller.is_turn()) {
    if (notify.kind == Kind::no) return std::nullopt;
    if (notify.kind == Kind::unset || notify.kind == Kind::yes) return caller.agent_id;
    throw Error(ErrorCode::bad_request, "a Crew agent's call notifies its own conversation; give notify true or false");
  }
  if (caller.is_execution()) {
    if (notify.kind == Kind::unset || notify.kind == Kind::no) return std::nullopt;
    throw Error(ErrorCode::bad_request, "an execution cannot ask for notices: it follows its calls by reading them");
  }
  if (!caller.is_login()) {
    if (notify.kind == Kind::no) return std::nullopt;
    if (notify.kind == Kind::agent && (!caller.agent_name || fold_name(notify.agent_name) != fold_name(*caller.agent_name)))
      throw Error(ErrorCode::forbidden, "a chat's call notifies only its own agent; give notify true or false");
    return caller.agent_id;
  }
  if (notify.kind == Kind::unset || notify.kind == Kind::no) return std::nullopt;
  if (notify.kind == Kind::yes)
    throw Error(ErrorCode::bad_request, "a login connection names the agent to notify: \"notify\": \"agent:NAME\"");
  return store.require_agent(caller, notify.agent_name).agent_id;
}

// The open call an execution acts for, checked for depth and for a cycle through `crew`/`function` (R-D4).
CallRow execution_parent(Store& store, const Connection& caller, const Crew& crew, const std::string& function) {
  const auto parent = call_by_id(store, caller.connection_id);
  if (!parent || !parent->open())
    throw Error(ErrorCode::unauthenticated, "the calling execution's call has ended; its secret is no longer valid");
  if (parent->depth >= kMaxCallDepth)
    throw Error(ErrorCode::forbidden, "calls nest at most " + std::to_string(kMaxCallDepth) +
                                          " levels deep; this execution is at level " + std::to_string(parent->depth));
  for (std::optional<CallRow> at = parent; at; at = at->parent_call_id ? call_by_id(store, *at->parent_call_id)
                                                                       : std::nullopt) {
    if (at->open() && at->crew_id == crew.crew_id && at->function == function)
      throw Error(ErrorCode::conflict, "a cycle: " + crew.name + "/" + function + " is already running above this "
                                           "execution (call " + at->call_id + ")");
  }
  return *parent;
}

}  // namespace

AdmittedCall admit_call(Store& store, const Connection& caller, const CallRequest& request) {
  const Crew crew = admitted_crew(store, caller, request.crew);
  const auto parsed = parsed_declaration(crew);
  const FunctionDecl* found = find_function(parsed->declaration, request.function);
  if (found == nullptr || !may_call(caller, crew, *found))
    throw Error(ErrorCode::not_found, "Crew '" + crew.name + "' has no function '" + request.function +
                                          "' that you may call; `agentworks functions list --crew " + crew.name + "`");
  const FunctionDecl& f = *found;
  const auto index = static_cast<std::size_t>(found - parsed->declaration.functions.data());
  // Inputs are checked before anything exists: no record, no folder, no process.
  const auto violations = parsed->inputs[index]->check(request.arguments_json, "arguments");
  if (!violations.empty())
    throw Error(ErrorCode::invalid_input,
                "the arguments do not match the inputs of " + f.name + ": " + describe(violations));
  const std::optional<std::string> notify = notify_agent(store, caller, request.notify);
  const std::string fingerprint = f.name + "\n" + request.arguments_json;
  std::optional<CallRow> parent;
  std::optional<std::string> submission_id = request.submission_id;
  if (caller.is_execution()) {
    parent = execution_parent(store, caller, crew, f.name);
    // The retry identity is scoped to the parent: by default its (Crew, function, arguments), or the given id.
    submission_id = "parent:" + parent->call_id + ":" +
                    submission_id.value_or(sha256_hex(crew.crew_id + "\n" + fingerprint).substr(0, 32));
  }
  if (submission_id) {
    if (auto earlier = call_by_submission(store, caller.account_id, crew.crew_id, *submission_id,
                                          store.limits().submission_retention_seconds)) {
      if (earlier->fingerprint != fingerprint)
        throw Error(ErrorCode::conflict, "submission_id '" + request.submission_id.value_or("(by arguments)") +
                                             "' was used for another call of this Crew; use a new id for new work");
      return AdmittedCall{crew, std::move(*earlier), false};
    }
  }
  // R-R3: a served Crew's call runs on its runner's computer; without a runner it is refused at once, never queued.
  if (crew.served() && !runner_online(store, crew)) {
    const std::int64_t since = crew.runner_seen_at > 0 ? crew.runner_seen_at : crew.runner_since;
    throw Error(ErrorCode::unavailable,
                crew.name + "'s runner is offline since " + utc_text(since) + " (" +
                    (crew.runner_conn ? "the computer serving it, " + crew.runner_host.value_or("") + ", has not "
                                        "checked in; its bridge must run there"
                                      : "its person stopped serving it") +
                    "); calls are not queued: retry when it is back");
  }
  // Its agent's conversation turns hold slots too (R-K2).
  if (running_calls(store, crew.crew_id) + running_turns(store, crew.crew_id) >= store.limits().crew_max_running)
    throw Error(ErrorCode::busy, "Crew '" + crew.name + "' is running " +
                                     std::to_string(store.limits().crew_max_running) +
                                     " calls and conversation turns, its limit; calls are not queued: retry when "
                                     "one has finished");
  NewCall in;
  in.crew_id = crew.crew_id;
  in.caller_account = caller.account_id;
  in.caller_conn = caller.connection_id;
  in.function = f.name;
  in.arguments_json = request.arguments_json;
  in.submission_id = submission_id;
  in.fingerprint = fingerprint;
  in.token = "awc_" + random_hex(32);
  if (!caller.is_login()) in.caller_agent_id = caller.agent_id;
  in.notify_agent_id = notify;
  if (caller.is_turn() && notify) in.notify_conversation_id = caller.connection_id;
  if (parent) {
    in.parent_call_id = parent->call_id;
    in.depth = parent->depth + 1;
  }
  if (crew.served()) {
    in.served = true;
    in.declaration_hash = declaration_hash(crew.declaration_json);
  }
  CallRow call = insert_call(store, in);
  return AdmittedCall{crew, std::move(call), true};
}

}  // namespace agentworks::server::functions
