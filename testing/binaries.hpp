// Paths of the programs under test, fixed at build time (CMake $<TARGET_FILE:...>) and overridable by
// environment variables (AGENTWORKS_TEST_SERVER_BIN, AGENTWORKS_TEST_CLI_BIN, AGENTWORKS_TEST_BRIDGE_BIN) to test
// installed binaries.
#pragma once

#include <string>

namespace agentworks::testing {

std::string server_binary();
std::string cli_binary();
std::string bridge_binary();

}  // namespace agentworks::testing
