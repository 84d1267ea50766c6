// The person's grants of Crew functions to named agents (R-D1): what an agent's chat may call through its own
// messaging connection. Kept by (account, folded agent name), so a grant survives reattaching and re-registering
// the name, and nothing the model can reach writes it (the routes take a login connection only).
#pragma once

#include <string>
#include <vector>

namespace agentworks::server {

class Store;

struct FunctionGrant {
  bool all = false;                // every Crew the account may call
  std::vector<std::string> crews;  // else these: a Crew name of the account (folded) or another account's crw_ id
  bool empty() const { return !all && crews.empty(); }
};

// The agent's grant; empty when none.
FunctionGrant function_grant(Store& store, const std::string& account_id, const std::string& agent_name);
// Replaces the grant; an empty one removes it.
void set_function_grant(Store& store, const std::string& account_id, const std::string& agent_name,
                        const FunctionGrant& grant);

}  // namespace agentworks::server
