// The server's single clock: Unix seconds. Every limit and timestamp reads time through now().
#pragma once

#include <cstdint>

namespace agentworks::server {

std::int64_t now();

}  // namespace agentworks::server
