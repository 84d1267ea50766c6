#include "process/call_environment.hpp"

#include <cstdlib>

namespace agentworks::functions {

std::vector<std::string> environment_of(const CallEnvironment& c) {
  std::vector<std::string> env;
  for (const char* name : {"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "TZ", "TMPDIR"}) {
    if (const char* v = std::getenv(name)) env.push_back(std::string(name) + "=" + v);
  }
  env.push_back("FUNCTION_INPUTS=" + c.inputs_json);
  env.push_back("FUNCTION_OUTPUT_DIR=" + c.output_dir);
  env.push_back("FUNCTION_RESULT_FILE=" + c.output_dir + "/result.json");
  env.push_back("CREW_OUTPUT_DIR=" + c.crew_output);
  env.push_back("CREW_RUN_DIR=" + c.crew_output);
  env.push_back("AGENTWORKS_CALL_ID=" + c.call_id);
  env.push_back("AGENTWORKS_CALL_TOKEN=" + c.call_token);
  env.push_back("AGENTWORKS_SERVER=" + c.server_url);
  if (!c.server_ca_file.empty()) env.push_back("AGENTWORKS_SERVER_CA_FILE=" + c.server_ca_file);
  if (c.correction) env.push_back("FUNCTION_CORRECTION=" + *c.correction);
  return env;
}

}  // namespace agentworks::functions
