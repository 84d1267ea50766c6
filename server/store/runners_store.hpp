// Crews served from their owner's computer (R-R1..R-R4, docs/decisions/0009-crew-runners.md): the runner's
// connection and presence, the claim of a served Crew's calls by lease, and what a runner may touch. The server
// never opens a served Crew's folder; its runner (that computer's bridge) runs the calls and reports them.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <string>
#include <vector>

#include "store/function_records.hpp"
#include "store/records.hpp"
#include "store/store.hpp"

namespace agentworks::server {

// A new runner connection for the served Crew (kind "runner", a child of the person's login, reaching only the
// runner routes of this Crew); the previous runner's is revoked, so one computer serves a Crew. The token is
// returned once.
NewConnection start_serving(Store& store, const Connection& login, const Crew& crew);
// Serving stops (R-R2): the runner's connection is revoked and the Crew's open calls end `cancelled`. Returns them.
std::vector<std::string> stop_serving(Store& store, const Connection& login, const Crew& crew);
// The served Crew whose runner `caller` is. Anything else is not_found: a runner reaches only its own Crew.
Crew runner_crew(Store& store, const Connection& caller, const std::string& name_or_id);
// Records the runner's visit: its presence decides R-R3's offline answer.
void runner_seen(Store& store, const std::string& crew_id);
// True when the Crew's runner visited within the lease (Limits::call_lease_seconds).
bool runner_online(Store& store, const Crew& crew);

struct ClaimedCall {
  CallRow call;
  std::string token;  // the execution's secret, new at the claim (only its hash is stored)
};
// The Crew's oldest call no runner took yet, now held by `runner` under a lease (one claim wins). nullopt when none.
std::optional<ClaimedCall> claim_call(Store& store, const Crew& crew, const Connection& runner);
// The call `runner` holds for the Crew; not_found otherwise.
CallRow held_call(Store& store, const Crew& crew, const Connection& runner, const std::string& call_id);
// Extends the lease of a call its runner holds (each report renews it).
void renew_served_lease(Store& store, const std::string& call_id);
// Extends `runner`'s lease of the open calls it holds among `call_ids`. The answer names those asked to end
// (R-D3) and those it no longer holds open (settled, or never its): their executions are to be killed.
struct Heartbeat {
  std::vector<std::string> cancel;
  std::vector<std::string> settled;
};
Heartbeat runner_heartbeat(Store& store, const Crew& crew, const Connection& runner,
                           const std::vector<std::string>& call_ids);
// Calls of the Crew waiting for its runner.
int unclaimed_calls(Store& store, const std::string& crew_id);

// R-R4: a served call's files, uploaded by its runner at the end of the execution and read from the server after.
struct StoredFile {
  std::string name;
  std::int64_t size = 0;
  bool text = false;
  std::int64_t modified = 0;
  bool stored = true;         // false: over the upload limit, listed with its size only
  std::int64_t received = 0;  // bytes stored so far
};
// One piece of a file at `offset`: a piece at 0 starts the file anew, any other must continue it exactly
// (`conflict` otherwise, nothing stored); a file that is not stored takes no bytes.
void store_file_piece(Store& store, const std::string& call_id, const StoredFile& file, std::int64_t offset,
                      std::string_view bytes);
std::vector<StoredFile> stored_files(Store& store, const std::string& call_id);
// `limit` bytes of a stored file from `offset` (fewer at its end); not_found when there is no such file, and when
// it was too large to store.
std::string stored_file_bytes(Store& store, const std::string& call_id, const std::string& name, std::int64_t offset,
                              std::int64_t limit, std::int64_t& size);
// The files of served calls finished before `before` leave the store (the same retention as a folder's).
int drop_stored_files(Store& store, std::int64_t before);

}  // namespace agentworks::server
