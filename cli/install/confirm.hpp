// The person's confirmation on the terminal for commands that change their setup (R-H10, R-H8): asked on
// stderr and answered on stdin, which must be a terminal; `--yes` is the person saying yes up front. Without a
// terminal and without --yes the command is refused (Error(usage)), so a script or an agent's tool call cannot
// answer for the person.
#pragma once

#include <string>

namespace agentworks::cli::install {

// Returns when confirmed. Throws Error(usage) without a terminal (naming --yes) and Error(usage) when the person
// answers anything but y/yes ("nothing was changed").
void confirm_on_terminal(const std::string& question, bool yes);

}  // namespace agentworks::cli::install
