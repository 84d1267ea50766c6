// Named failpoints for crash tests, compiled only in test builds (AGENTWORKS_FAILPOINTS). When the environment
// variable AGENTWORKS_FAILPOINT names the point, the process kills itself with SIGKILL right there.
#pragma once

namespace agentworks::bridge {
void failpoint_hit(const char* name);
}  // namespace agentworks::bridge

#ifdef AGENTWORKS_FAILPOINTS
#define AGENTWORKS_FAILPOINT(name) ::agentworks::bridge::failpoint_hit(name)
#else
#define AGENTWORKS_FAILPOINT(name) ((void)0)
#endif
