// Where the CLI finds the programs it starts (the embedded server, the bridge): the override variable if set,
// else beside this executable (installed) or in the build tree's sibling folder, else on PATH.
#pragma once

#include <filesystem>

#include "agentworks/environment.hpp"

namespace agentworks::cli {

// `build_folder` is the program's folder in the build tree ("server", "daemon"). Throws not_found with the fix.
std::filesystem::path find_program(const char* name, const char* build_folder, env::Var override_var,
                                   const char* override_name);

}  // namespace agentworks::cli
