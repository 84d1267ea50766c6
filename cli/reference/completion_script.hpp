// bash and zsh completion scripts for `agentworks`, rendered from the command table: command words at each
// level, and each command's options.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "reference/command_reference.hpp"

namespace agentworks::cli {

// The script for `shell` ("bash" or "zsh"); nullopt for any other shell.
std::optional<std::string> render_completion_script(const CliReference& cli, std::string_view shell);

}  // namespace agentworks::cli
