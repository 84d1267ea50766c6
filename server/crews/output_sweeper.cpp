#include "crews/output_sweeper.hpp"

#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "clock.hpp"
#include "crews/call_files.hpp"
#include "store/calls_store.hpp"
#include "store/crews_store.hpp"

namespace agentworks::server::functions {

int sweep_call_outputs(Store& store, const Crew& crew, std::int64_t retention_seconds, std::int64_t interval_seconds) {
  const std::int64_t t = now();
  if (crew.last_sweep_at != 0 && t - crew.last_sweep_at < interval_seconds) return 0;
  set_last_sweep(store, crew.crew_id, t);
  int removed = 0;
  for (const auto& call_id : finished_calls_with_files(store, crew.crew_id)) {
    const std::filesystem::path dir = std::filesystem::path(crew.dir) / ".calls" / call_id;
    const std::int64_t changed = last_change(dir);
    if (changed != 0 && t - changed < retention_seconds) continue;
    if (!discard_call_folder(dir)) {
      spdlog::warn("cannot move the expired call folder {} to the trash: {}", dir.string(), std::strerror(errno));
      continue;
    }
    mark_files_expired(store, call_id);
    ++removed;
  }
  // The sweep runs inside a request: the trash is emptied a bounded walk at a time.
  empty_call_trash(std::filesystem::path(crew.dir) / ".calls");
  return removed;
}

}  // namespace agentworks::server::functions
