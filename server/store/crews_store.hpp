// Crews: an account's registered project folders and their stored declarations (R-F1).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "store/function_records.hpp"
#include "store/records.hpp"

namespace agentworks::server {

class Store;

inline constexpr int kMaxCrewsPerAccount = 100;

// `dir` is canonical; refuses a taken name (conflict), a folder inside (or holding) another live Crew of the same
// computer (conflict) and the per-account cap (limit_reached). With `runner_host` the Crew is served from that
// computer (R-R1): `dir` is its folder there, and the server never opens it.
Crew register_crew(Store& store, const Connection& caller, const std::string& name, const std::string& dir,
                   const std::string& declaration_json, const std::string& allowance_json,
                   const std::optional<std::string>& runner_host = std::nullopt);
// The caller's own Crew by name or crew_id (not_found otherwise).
Crew own_crew(Store& store, const Connection& caller, const std::string& name_or_id);
// The own agent of the caller's Crew NAME as its person names it, "crew:NAME" (R-K1): nullopt until somebody
// talked to it; not_found for a Crew outside the caller's account. The agent's name reads "crew:NAME".
std::optional<Agent> own_crew_agent(Store& store, const Connection& caller, const std::string& crew_name);
// A live Crew by the caller's own name or by crew_id of any account (the caller's admission is checked apart).
std::optional<Crew> crew_for_caller(Store& store, const Connection& caller, const std::string& name_or_id);
std::optional<Crew> crew_by_id(Store& store, const std::string& crew_id);
std::vector<Crew> list_crews(Store& store, const std::string& account_id);
void set_declaration(Store& store, const std::string& crew_id, const std::string& declaration_json);
// R-R1: the computer serving the Crew and its folder there (serving again, from that computer or another).
void set_served_from(Store& store, const std::string& crew_id, const std::string& host, const std::string& dir);
void set_allowance(Store& store, const std::string& crew_id, const std::string& allowance_json);
void remove_crew(Store& store, const std::string& crew_id);
void set_last_sweep(Store& store, const std::string& crew_id, std::int64_t at);
int running_calls(Store& store, const std::string& crew_id);
// The conversation turns of its agent running now (R-K2): they hold running slots like calls.
int running_turns(Store& store, const std::string& crew_id);
// R-K3: the person's messaging switch; nullopt returns to crew.json's value.
void set_messaging(Store& store, const std::string& crew_id, std::optional<bool> messaging);

}  // namespace agentworks::server
