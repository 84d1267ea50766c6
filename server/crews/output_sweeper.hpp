// Cleanup of call folders (R-F6): `.calls/<call_id>/` is removed once nothing in it changed for the retention
// period, swept at most once per interval per Crew, when a later call of the Crew starts. Never inside a request
// and never on the event loop: the loop plans a sweep (plan_sweep: which finished calls have files), a worker
// thread does the folder work (run_sweep: the walks, the renames into the trash, emptying it), and the loop then
// marks the calls whose folders left (record_swept). Running calls are never swept; the call record stays and its
// files read `expired`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace agentworks::server {
class Store;
struct Crew;
}

namespace agentworks::server::functions {

struct SweepJob {
  std::string crew_id;
  std::string crew_dir;
  std::vector<std::string> call_ids;  // finished calls whose files are not marked expired yet
  std::int64_t now = 0;
  std::int64_t retention_seconds = 0;
};

// A call whose folder the sweep took, or found never made (the call ended before its execution started).
struct SweptCall {
  std::string call_id;
  bool had_folder = true;
};

// On the loop, in a store write: nullopt when the Crew was swept less than `interval_seconds` ago; else records
// the sweep's time and returns what to look at.
std::optional<SweepJob> plan_sweep(Store& store, const Crew& crew, std::int64_t retention_seconds,
                                   std::int64_t interval_seconds);

// Off the loop (no store): moves each folder unchanged for the retention period into `.calls/.trash` and empties
// the trash one bounded walk at a time. Returns the calls whose folders left, and those that never had one.
std::vector<SweptCall> run_sweep(const SweepJob& job);

// On the loop, in a store write: the swept calls' files read `expired` from now on; a call that never had a
// folder reads as having no files (never `expired`), and neither is looked at again.
void record_swept(Store& store, const std::vector<SweptCall>& calls);

}  // namespace agentworks::server::functions
