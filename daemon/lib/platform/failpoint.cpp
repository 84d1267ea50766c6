#include "platform/failpoint.hpp"

#include <csignal>
#include <cstdlib>
#include <cstring>

namespace agentworks::bridge {

void failpoint_hit(const char* name) {
  const char* wanted = std::getenv("AGENTWORKS_FAILPOINT");
  if (wanted != nullptr && std::strcmp(wanted, name) == 0) std::raise(SIGKILL);
}

}  // namespace agentworks::bridge
