// Cleanup of call folders (R-F6): `.calls/<call_id>/` is removed once nothing in it changed for the retention
// period, swept at most once per interval per Crew, on later function activity. Running calls are never swept;
// the call record stays and its files read `expired`.
#pragma once

#include <cstdint>

namespace agentworks::server {
class Store;
struct Crew;
}

namespace agentworks::server::functions {

// Returns how many folders it removed. Runs inside a request (it marks the records).
int sweep_call_outputs(Store& store, const Crew& crew, std::int64_t retention_seconds, std::int64_t interval_seconds);

}  // namespace agentworks::server::functions
