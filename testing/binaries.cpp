#include "testing/binaries.hpp"

#include <cstdlib>

#ifndef AGENTWORKS_SERVER_BIN
#error "AGENTWORKS_SERVER_BIN must be defined by CMake"
#endif
#ifndef AGENTWORKS_BRIDGE_BIN
#error "AGENTWORKS_BRIDGE_BIN must be defined by CMake"
#endif
#ifndef AGENTWORKS_CLI_BIN
#error "AGENTWORKS_CLI_BIN must be defined by CMake"
#endif

namespace agentworks::testing {
namespace {
std::string from_env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return (v != nullptr && v[0] != '\0') ? std::string(v) : std::string(fallback);
}
}  // namespace

std::string server_binary() { return from_env_or("AGENTWORKS_TEST_SERVER_BIN", AGENTWORKS_SERVER_BIN); }
std::string cli_binary() { return from_env_or("AGENTWORKS_TEST_CLI_BIN", AGENTWORKS_CLI_BIN); }
std::string bridge_binary() { return from_env_or("AGENTWORKS_TEST_BRIDGE_BIN", AGENTWORKS_BRIDGE_BIN); }

bool programs_have_failpoints() { return AGENTWORKS_PROGRAMS_HAVE_FAILPOINTS != 0; }

}  // namespace agentworks::testing
