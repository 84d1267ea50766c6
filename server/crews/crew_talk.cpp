#include "crews/crew_talk.hpp"

#include "agentworks/error.hpp"
#include "crews/call_admission.hpp"
#include "crews/declaration.hpp"
#include "store/crews_store.hpp"
#include "store/store.hpp"

namespace agentworks::server::functions {
namespace {

void refuse_if_silenced(const Crew& crew, const Declaration& d) {
  if (messaging_on(crew, d)) return;
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
    const auto crew = crew_for_caller(store, caller, name);
    if (!crew || crew->account_id != caller.account_id)
      throw Error(ErrorCode::not_found, "no Crew '" + name + "' in this account; `agentworks crews list` shows them");
    const auto parsed = parsed_declaration(*crew);
    if (!parsed->declaration.agent)
      throw Error(ErrorCode::not_found, "Crew '" + crew->name + "' has no agent to talk to: declare one in " +
                                            crew->dir + "/.agentworks/crew.json and run `agentworks crews reload " +
                                            crew->name + "` (docs/crews.md), or call its functions");
    refuse_if_silenced(*crew, parsed->declaration);
    in.crew_agent = store.crew_agent(crew->account_id, crew->crew_id, crew->name);
    return;
  }
  if (!in.inbox_id) return;
  const auto crew_id = store.inbox_crew(caller, *in.inbox_id);
  if (!crew_id) return;
  const auto crew = crew_by_id(store, *crew_id);
  if (!crew) throw Error(ErrorCode::not_found, "the Crew of inbox " + *in.inbox_id + " was unregistered");
  refuse_if_silenced(*crew, parsed_declaration(*crew)->declaration);
}

}  // namespace agentworks::server::functions
