// The floor a SQLite server's accepted sends/s is measured against: commits of `rows_per_commit` message-sized
// rows into a WAL database with synchronous=FULL (one fdatasync per commit), on the same file system, in the same
// run. With N senders each holding one request in flight a group commit holds at most N messages, so N rows per
// commit is what the server could reach if requests, answers and SSE cost nothing.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace agentworks::bench {

struct CommitFloor {
  double rows_per_second = 0;
  double commits_per_second = 0;
  std::string error;  // non-empty: nothing was measured
};

CommitFloor measure_commit_floor(const std::filesystem::path& dir, std::size_t rows_per_commit, double seconds,
                                 std::size_t row_bytes);

}  // namespace agentworks::bench
