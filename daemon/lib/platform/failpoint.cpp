#include "platform/failpoint.hpp"

#include <csignal>
#include <cstdlib>
#include <cstring>

#include "agentworks/environment.hpp"

namespace agentworks::bridge {

void failpoint_hit(const char* name) {
  const char* wanted = env::get(env::Var::failpoint);
  if (wanted != nullptr && std::strcmp(wanted, name) == 0) std::raise(SIGKILL);
}

}  // namespace agentworks::bridge
