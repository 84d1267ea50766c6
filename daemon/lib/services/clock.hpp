// The wall clock the journal's timestamps use: seconds since the Unix epoch.
#pragma once

#include <cstdint>

namespace agentworks::bridge {

std::int64_t unix_now();

}  // namespace agentworks::bridge
