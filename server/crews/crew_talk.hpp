// Talking to a Crew (R-K1, R-K3): the one place that decides whether a message may go to a Crew's own agent. A
// "crew:NAME" target (crew:crw_... for another account's Crew that admits the caller) becomes the Crew's hidden agent (created on the first message), and every message to that
// agent, a reply in an existing conversation included, is refused while the Crew's messaging is off.
#pragma once

#include <optional>
#include <string>

#include "store/function_records.hpp"
#include "store/records.hpp"

namespace agentworks::server {
class Store;
struct SendInput;
}  // namespace agentworks::server

namespace agentworks::functions {
struct Declaration;
}

namespace agentworks::server::functions {

// The server's side of function calls builds on the execution library (functions/).
using namespace agentworks::functions;

// The messaging switch in force: the person's setting, else crew.json's value (on unless it says false).
bool messaging_on(const Crew& crew, const Declaration& d);

// Before Store::send: resolves a "crew:NAME" target into in.crew_agent, and refuses (messaging_disabled, nothing
// stored) a message to a Crew's agent whose messaging is off; not_found for a Crew without an agent.
void admit_crew_message(Store& store, const Connection& caller, SendInput& in);

}  // namespace agentworks::server::functions
