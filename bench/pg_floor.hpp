// The floor a replica on PostgreSQL is measured against: pgbench, on the same database in the same run, running
// the transaction a batch of sends makes (docs/benchmarks.md "PostgreSQL against its pgbench floor"): BEGIN, the
// store's write lock, then per send a savepoint, the three reads (connection by token, target agent, open
// conversation), the conversation's update and the message's insert, the savepoint's release; then a notification
// and COMMIT, with the same statement grouping into round trips as the store's pipeline. The writes go to
// conversations of the floor's own (no stream of the server reads them); the reads hit the run's real rows.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace agentworks::bench {

struct PgFloor {
  double sends_per_second = 0;  // transactions/s x sends per transaction
  double transactions_per_second = 0;
  std::string error;  // non-empty: nothing was measured
};

// Prepares the floor's conversations once (`account_id` and `token_hash` name a real connection that sends, and
// `agent_names` real agents of that account), then measures. One pgbench client: the store writes with one
// connection per replica, under one lock.
class PgFloorRunner {
 public:
  PgFloorRunner(std::string url, std::filesystem::path dir, std::size_t sends_per_transaction, std::size_t body_bytes);
  // Reads the run's connection and agents, creates the floor's conversations and writes the pgbench script.
  bool prepare(std::string* error);
  PgFloor measure(double seconds) const;

 private:
  std::string url_;
  std::filesystem::path dir_;
  std::size_t sends_per_transaction_;
  std::size_t body_bytes_;
  std::filesystem::path script_;
};

}  // namespace agentworks::bench
