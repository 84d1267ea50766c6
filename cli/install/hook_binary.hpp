// Where the installed hooks point: the absolute path of agentworks-hook, and the shell-safe form of it used in
// the providers' hook commands (they run the command through a shell whose PATH may lack /usr/local/bin).
#pragma once

#include <filesystem>
#include <string>

namespace agentworks::cli::install {

// $AGENTWORKS_HOOK_BIN when set; else agentworks-hook beside the running agentworks; else
// <exe_dir>/../hooks/agentworks-hook (the build tree). Throws Error(not_found) naming the places it looked.
std::filesystem::path find_hook_binary();

// `path` quoted for a POSIX shell when it holds anything but [A-Za-z0-9_./+,:=@%-].
std::string shell_quote(const std::string& path);

}  // namespace agentworks::cli::install
