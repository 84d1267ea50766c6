#include "crews/crew_talk.hpp"

#include "agentworks/error.hpp"
#include "crews/access.hpp"
#include "crews/call_admission.hpp"
#include "declaration/declaration.hpp"
#include "store/crews_store.hpp"
#include "store/store.hpp"

namespace agentworks::server::functions {
namespace {

// `own`: the caller is of the Crew's account, so the message may name the Crew's commands and files.
void refuse_if_silenced(const Crew& crew, const Declaration& d, bool own) {
  if (messaging_on(crew, d)) return;
  if (!own)
    throw Error(ErrorCode::messaging_disabled, "Crew " + crew.crew_id + " takes no messages: its owner switched its "
                                               "messaging off; its functions can still be called");
  throw Error(ErrorCode::messaging_disabled,
              "Crew '" + crew.name + "' takes no messages: its messaging is switched off" +
                  (crew.messaging_set ? std::string(" (agentworks crews set " + crew.name + " --messaging on)")
                                      : std::string(" in its .agentworks/crew.json")) +
                  "; its functions can still be called (agentworks functions list --crew " + crew.name + ")");
}

}  // namespace

bool messaging_on(const Crew& crew, const Declaration& d) { return crew.messaging_set.value_or(d.messaging); }

void admit_crew_message(Store& store, const Connection& caller, SendInput& in) {
  if (in.target && in.target->rfind("crew:", 0) == 0) {
    const std::string name = in.target->substr(5);
    auto crew = crew_for_caller(store, caller, name);
    if (!crew)
      throw Error(ErrorCode::not_found, "no Crew '" + name + "' in this account; `agentworks crews list` shows them "
                                        "(a Crew of another account is named by its crew_id, crew:crw_...)");
    // Another account's Crew talks to whom it admits to its functions, a chat only with its person's grant (R-F4,
    // R-D1): the same rule as a call, never a second one.
    const bool own = crew->account_id == caller.account_id;
    if (!own) crew = admitted_crew(store, caller, name);
    const auto parsed = parsed_declaration(*crew);
    if (!parsed->declaration.agent && !own)
      throw Error(ErrorCode::not_found, "Crew " + crew->crew_id + " has no agent to talk to; call its functions "
                                        "(agentworks functions list --crew " + crew->crew_id + ")");
    if (!parsed->declaration.agent)
      throw Error(ErrorCode::not_found, "Crew '" + crew->name + "' has no agent to talk to: declare one in " +
                                            crew->dir + "/.agentworks/crew.json and run `agentworks crews reload " +
                                            crew->name + "` (docs/crews.md), or call its functions");
    refuse_if_silenced(*crew, parsed->declaration, own);
    // The agent's turns run where its folder is; a served Crew's folder is on its runner's computer, which runs
    // calls only (R-R1).
    if (crew->served())
      throw Error(ErrorCode::messaging_disabled,
                  "Crew " + (own ? "'" + crew->name + "'" : crew->crew_id) + " is served from another computer, which "
                  "runs its function calls only; its agent takes messages when the server runs the Crew itself");
    in.crew_agent = store.crew_agent(crew->account_id, crew->crew_id, crew->name);
    return;
  }
  if (!in.inbox_id) return;
  const auto crew_id = store.inbox_crew(caller, *in.inbox_id);
  if (!crew_id) return;
  const auto crew = crew_by_id(store, *crew_id);
  if (!crew) throw Error(ErrorCode::not_found, "the Crew of inbox " + *in.inbox_id + " was unregistered");
  refuse_if_silenced(*crew, parsed_declaration(*crew)->declaration, crew->account_id == caller.account_id);
}

}  // namespace agentworks::server::functions
