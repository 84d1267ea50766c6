#include "crews/output_sweeper.hpp"

#include <spdlog/spdlog.h>

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "clock.hpp"
#include "call/call_files.hpp"
#include "store/calls_store.hpp"
#include "store/crews_store.hpp"

namespace agentworks::server::functions {

// The call folder's own operations are the execution library's (functions/call/call_files.hpp).
using namespace agentworks::functions;

std::optional<SweepJob> plan_sweep(Store& store, const Crew& crew, std::int64_t retention_seconds,
                                   std::int64_t interval_seconds) {
  const std::int64_t t = now();
  if (crew.last_sweep_at != 0 && t - crew.last_sweep_at < interval_seconds) return std::nullopt;
  set_last_sweep(store, crew.crew_id, t);
  SweepJob job;
  job.crew_id = crew.crew_id;
  job.crew_dir = crew.dir;
  job.call_ids = finished_calls_with_files(store, crew.crew_id);
  job.now = t;
  job.retention_seconds = retention_seconds;
  return job;
}

std::vector<SweptCall> run_sweep(const SweepJob& job) {
  std::vector<SweptCall> swept;
  const std::filesystem::path calls = std::filesystem::path(job.crew_dir) / ".calls";
  for (const auto& call_id : job.call_ids) {
    const std::filesystem::path dir = calls / call_id;
    const std::int64_t changed = last_change(dir);
    struct stat st {};
    if (changed == 0 && ::lstat(dir.c_str(), &st) != 0 && errno == ENOENT) {
      swept.push_back(SweptCall{call_id, false});
      continue;
    }
    if (changed != 0 && job.now - changed < job.retention_seconds) continue;
    if (!discard_call_folder(dir)) {
      spdlog::warn("cannot move the expired call folder {} to the trash: {}", dir.string(), std::strerror(errno));
      continue;
    }
    swept.push_back(SweptCall{call_id, true});
  }
  // One bounded walk per sweep keeps a sweep short, so stopping the server never waits long for the worker.
  empty_call_trash(calls);
  return swept;
}

void record_swept(Store& store, const std::vector<SweptCall>& calls) {
  for (const auto& c : calls) mark_files_gone(store, c.call_id, c.had_folder);
}

}  // namespace agentworks::server::functions
