// A PostgreSQL 15 cluster of the tests' own: initdb in a directory, postgres listening on a free loopback port and
// on a Unix socket in that directory, readiness polled over libpq, stopped with `pg_ctl stop -m fast`. initdb and
// postgres refuse to run as root, so as root (CI) they run as an unprivileged user through runuser
// (AGENTWORKS_TEST_PG_OS_USER, default nobody) and the directory is given to that user. The server programs come
// from AGENTWORKS_TEST_PG_BINDIR, else /usr/lib/postgresql/15/bin, else `pg_config --bindir`.
#pragma once

#include <filesystem>
#include <string>

namespace agentworks::testing {

// The directory of the PostgreSQL 15 server programs (initdb, pg_ctl, pgbench); throws std::runtime_error saying
// what to install when there is none.
std::filesystem::path pg_server_bindir();

// The superuser initdb creates; every URL names it.
inline constexpr char kPgUser[] = "agentworks";

class PgCluster {
 public:
  // initdb in DIR/data and start it (DIR is created; a cluster left there by an earlier run is stopped and
  // replaced). Throws std::runtime_error saying what to do (install postgresql-15, a shorter directory, ...).
  static PgCluster start(const std::filesystem::path& dir);

  PgCluster(PgCluster&& other) noexcept;
  PgCluster& operator=(PgCluster&&) = delete;
  PgCluster(const PgCluster&) = delete;
  PgCluster& operator=(const PgCluster&) = delete;
  ~PgCluster();  // stops it unless stopped or released

  void stop();
  // `pg_ctl restart -m MODE` (fast: clients are disconnected and the postmaster refuses new connections while it
  // shuts down; immediate: it dies as if killed and recovers on start), then polls until it accepts connections
  // again on the same port. Fault tests use it to restart the database under load.
  enum class RestartMode { fast, immediate };
  void restart(RestartMode mode);
  // Leaves it running past this object (agentworks-test-pg start; `stop_pg_cluster(dir)` ends it later).
  void release() { running_ = false; }

  // postgresql://agentworks@127.0.0.1:PORT, with /dbname when one is given.
  std::string url(const std::string& dbname = "") const;
  void create_database(const std::string& name, const std::string& template_name = "") const;
  void drop_database(const std::string& name) const;

  int port() const { return port_; }
  const std::filesystem::path& dir() const { return dir_; }  // also the Unix socket directory
  std::filesystem::path log_path() const { return dir_ / "postgres.log"; }

 private:
  PgCluster(std::filesystem::path dir, int port) : dir_(std::move(dir)), port_(port), running_(true) {}

  std::filesystem::path dir_;
  int port_ = 0;
  bool running_ = false;
};

// Stops the cluster in DIR (`pg_ctl stop -m fast`, as the owner of DIR/data); no-op when none runs there. Throws
// when it is still running afterwards.
void stop_pg_cluster(const std::filesystem::path& dir);

}  // namespace agentworks::testing
