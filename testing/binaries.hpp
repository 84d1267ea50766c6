// Paths of the programs under test, fixed at build time (CMake $<TARGET_FILE:...>) and overridable by
// environment variables (AGENTWORKS_TEST_SERVER_BIN, AGENTWORKS_TEST_CLI_BIN, AGENTWORKS_TEST_BRIDGE_BIN) to test
// installed binaries.
#pragma once

#include <string>

namespace agentworks::testing {

std::string server_binary();
std::string cli_binary();
std::string bridge_binary();

// Whether those programs were built with the named failpoints (AGENTWORKS_FAILPOINTS: the debug and asan presets;
// the default preset is the shipping build and has none). Tests that drive a failpoint skip without them.
bool programs_have_failpoints();

}  // namespace agentworks::testing
