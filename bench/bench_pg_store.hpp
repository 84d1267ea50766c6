// A PostgreSQL store of the benchmark's own: a test cluster (testing/pg_cluster.hpp) in a new directory under
// `parent` (under /tmp: as root the cluster runs as an unprivileged user, who must reach it) with one migrated database, for servers started with `--store URL`. Stopped and removed on destruction.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <memory>
#include <string>

#include "testing/pg_cluster.hpp"

namespace agentworks::bench {

class BenchPgStore {
 public:
  // Starts the cluster, turns fsync and full-page writes back on unless `durable` is false (the test cluster turns
  // them off; a benchmark against SQLite, which syncs every commit, must not compare with a store that skips
  // durability; off is a diagnostic), creates the database and runs `server_binary migrate --store URL`. Throws
  // std::runtime_error naming the step that failed.
  BenchPgStore(const std::string& server_binary, const std::filesystem::path& parent, bool durable = true);
  BenchPgStore(const BenchPgStore&) = delete;
  BenchPgStore& operator=(const BenchPgStore&) = delete;
  ~BenchPgStore();

  const std::string& url() const { return url_; }  // the migrated database
  const std::filesystem::path& dir() const { return dir_; }
  int port() const { return cluster_->port(); }
  // The postmaster's pid (first line of its postmaster.pid), 0 when unreadable: its children are the backends.
  pid_t postmaster_pid() const;

 private:
  void set_up(const std::string& server_binary, bool durable);
  void remove();  // stops the cluster and removes dir_ (unless AGENTWORKS_BENCH_KEEP_DATA is set)

  std::filesystem::path dir_;
  std::unique_ptr<testing::PgCluster> cluster_;
  std::string url_;
};

}  // namespace agentworks::bench
