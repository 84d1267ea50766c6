// The environment of an execution: the FUNCTION_* contract (docs/functions.md) plus a few variables of the
// server's own environment that programs need (PATH, HOME, locale); nothing else leaks in.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace agentworks::server::functions {

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

}  // namespace agentworks::server::functions
