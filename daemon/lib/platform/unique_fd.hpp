// An owned file descriptor (the shared one in common/, named in the bridge's namespace).
#pragma once

#include "agentworks/unique_fd.hpp"

namespace agentworks::bridge {

using UniqueFd = agentworks::UniqueFd;

}  // namespace agentworks::bridge
