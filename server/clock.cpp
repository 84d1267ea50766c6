#include "clock.hpp"

#include <ctime>

namespace agentworks::server {

std::int64_t now() { return static_cast<std::int64_t>(std::time(nullptr)); }

}  // namespace agentworks::server
