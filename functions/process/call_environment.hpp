// The environment of an execution: the FUNCTION_* contract (docs/functions.md) plus a few variables of the
// host's own environment that programs need (PATH, HOME, locale); nothing else leaks in.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace agentworks::functions {

// What a host of executions (the server, or a bridge serving a Crew) tells every execution it starts.
struct RunnerConfig {
  std::string keeper;          // agentworks-keeper, beside the host's executable
  std::string server_url;      // AGENTWORKS_SERVER for `agentworks functions ask` and the agent's MCP server
  std::string server_ca_file;  // AGENTWORKS_SERVER_CA_FILE: the server's own certificate when it serves TLS
  std::string agentworks_cli;  // `agentworks`, the agent executions' MCP server ("" when not found)
};

struct CallEnvironment {
  std::string call_id;
  std::string call_token;
  std::string server_url;
  std::string server_ca_file;  // empty unless the server serves TLS
  std::string inputs_json;
  std::string output_dir;   // <crew>/.calls/<call_id>
  std::string crew_output;  // <crew>/outputs
  std::optional<std::string> correction;
};

std::vector<std::string> environment_of(const CallEnvironment& c);

}  // namespace agentworks::functions
