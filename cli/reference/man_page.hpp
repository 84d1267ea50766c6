// agentworks(1) in roff (man(7) macros), rendered from the command table.
#pragma once

#include <string>

#include "reference/command_reference.hpp"

namespace agentworks::cli {

std::string render_man_page(const CliReference& cli);

}  // namespace agentworks::cli
