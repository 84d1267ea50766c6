// The runner of a Crew served from this computer (R-R1..R-R4, docs/decisions/0009-crew-runners.md): it claims the
// Crew's calls from the server by lease, checks each against its own parse of the folder (the declaration the
// call was admitted under, the function, the inputs), runs it with the execution library exactly as the server
// runs its own Crews' calls, and reports what the execution says and how it ended. The executions' loop is
// libevent's; the server requests run on two threads of their own (the claim's long poll, and the uploads in
// order), so nothing on the loop waits on the network.
#pragma once

#include <string>

#include "process/call_environment.hpp"
#include "serving/served_crews.hpp"

namespace agentworks::cli {

struct RunnerEnd {
  int exit_code = 0;
  std::string reason;  // why it stopped: a signal, or the server ended the serving
};

// Serves until SIGTERM / SIGINT, or until the server refuses the runner's connection (serving stopped, or moved
// to another computer). Executions still running when it stops are killed; the server interrupts their calls
// when the lease lapses.
RunnerEnd serve_crew(const ServedCrew& crew, const agentworks::functions::RunnerConfig& config);

// The programs an execution needs on this computer: the keeper (AGENTWORKS_KEEPER_BIN, beside this program, or the
// build tree's server/ folder) and this program as the agents' MCP server. Error(internal) naming what is missing.
agentworks::functions::RunnerConfig runner_config_for(const ServedCrew& crew);

}  // namespace agentworks::cli
