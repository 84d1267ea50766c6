#include "testing/pg_cluster.hpp"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <vector>

#include "testing/failure_report.hpp"
#include "testing/net_probe.hpp"
#include "testing/pg_admin.hpp"
#include "testing/process.hpp"
#include "testing/wait.hpp"

namespace agentworks::testing {
namespace fs = std::filesystem;

namespace {

constexpr auto kPgStartTimeout = std::chrono::seconds(60);
constexpr int kPgPortAttempts = 5;  // a free port can be taken between probing and binding it

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string();
}

std::string trimmed_line(const std::string& s) {
  const auto end = s.find_first_of("\r\n");
  return s.substr(0, end);
}

// Where initdb, pg_ctl and postgres are. libpq-dev's pg_config may answer a directory without them (the server
// package missing), so the answer counts only when initdb is there.
fs::path pg_bindir() {
  const std::string forced = env_or_empty("AGENTWORKS_TEST_PG_BINDIR");
  std::vector<fs::path> candidates;
  if (!forced.empty()) {
    candidates.push_back(forced);
  } else {
    candidates.push_back("/usr/lib/postgresql/15/bin");
    for (const char* pg_config : {"/usr/bin/pg_config", "/usr/local/bin/pg_config"}) {
      if (::access(pg_config, X_OK) != 0) continue;
      const ProcessResult r = run_process({pg_config, "--bindir"});
      if (r.exit_code == 0) candidates.push_back(trimmed_line(r.out));
    }
  }
  for (const fs::path& dir : candidates) {
    if (::access((dir / "initdb").c_str(), X_OK) == 0 && ::access((dir / "pg_ctl").c_str(), X_OK) == 0) return dir;
  }
  std::string looked;
  for (const fs::path& dir : candidates) looked += (looked.empty() ? "" : ", ") + dir.string();
  throw std::runtime_error("the PostgreSQL 15 server programs (initdb, pg_ctl) are not in " + looked +
                           ": install the Debian package postgresql-15 (packaging/install-deps.sh), point "
                           "AGENTWORKS_TEST_PG_BINDIR at them, or configure with -DAGENTWORKS_POSTGRESQL_TESTS=OFF");
}

// The unprivileged account initdb and postgres run as when this process is root.
struct PgOsUser {
  std::string name;
  uid_t uid = 0;
  gid_t gid = 0;
};

PgOsUser os_user_named(const std::string& name) {
  const passwd* pw = ::getpwnam(name.c_str());
  if (pw == nullptr) {
    throw std::runtime_error("AGENTWORKS_TEST_PG_OS_USER=" + name +
                             " is not a user here: name an unprivileged account (the default is nobody)");
  }
  if (pw->pw_uid == 0) {
    throw std::runtime_error("AGENTWORKS_TEST_PG_OS_USER=" + name +
                             " is root, which initdb and postgres refuse: name an unprivileged account");
  }
  return PgOsUser{name, pw->pw_uid, pw->pw_gid};
}

std::optional<PgOsUser> os_user_for_new_cluster() {
  if (::geteuid() != 0) return std::nullopt;
  const std::string name = env_or_empty("AGENTWORKS_TEST_PG_OS_USER");
  return os_user_named(name.empty() ? "nobody" : name);
}

// A running cluster is stopped as whoever owns its data directory (what start chose then).
std::optional<PgOsUser> os_user_owning(const fs::path& data_dir) {
  if (::geteuid() != 0) return std::nullopt;
  struct stat st {};
  if (::stat(data_dir.c_str(), &st) != 0 || st.st_uid == 0) return std::nullopt;
  const passwd* pw = ::getpwuid(st.st_uid);
  if (pw == nullptr) throw std::runtime_error("the owner (uid " + std::to_string(st.st_uid) + ") of " +
                                              data_dir.string() + " has no name: remove the directory");
  return PgOsUser{pw->pw_name, pw->pw_uid, pw->pw_gid};
}

fs::path runuser_path() {
  for (const char* p : {"/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"}) {
    if (::access(p, X_OK) == 0) return p;
  }
  throw std::runtime_error("running as root, the PostgreSQL test cluster needs runuser to drop privileges: install "
                           "the Debian package util-linux, or run the tests as an unprivileged user");
}

// Runs a PostgreSQL program, as `user` when there is one; the child's PG* variables are cleared so a developer's
// PGDATA or PGPORT cannot point it elsewhere.
ProcessResult run_pg_program(const std::optional<PgOsUser>& user, std::vector<std::string> argv,
                             const fs::path& cwd, std::chrono::milliseconds timeout) {
  if (user) argv.insert(argv.begin(), {runuser_path().string(), "-u", user->name, "--"});
  RunOptions options;
  options.env = unset_inherited("PG");
  options.timeout = timeout;
  options.cwd = cwd;
  return run_process(argv, options);
}

std::string describe_pg_failure(const std::string& what, const ProcessResult& r) {
  return what + " failed (exit " + std::to_string(r.exit_code) + (r.timed_out ? ", timed out" : "") + "):\n" +
         r.out + r.err;
}

// postgresql.conf takes single-quoted strings with quotes doubled.
std::string conf_string(const std::string& s) {
  std::string out = "'";
  for (const char c : s) out += (c == '\'') ? std::string("''") : std::string(1, c);
  return out + "'";
}

void write_test_settings(const fs::path& data_dir, const fs::path& socket_dir) {
  std::ofstream conf(data_dir / "postgresql.conf", std::ios::app);
  // Loopback only; a Unix socket beside the data for tools; no fsync: a test cluster is thrown away, and a crash
  // the tests make is the agentworks server's (kill -9), which PostgreSQL's own WAL survives without fsync.
  conf << "\n# agentworks test cluster (testing/pg_cluster.cpp)\n"
       << "listen_addresses = '127.0.0.1'\n"
       << "unix_socket_directories = " << conf_string(socket_dir.string()) << "\n"
       << "fsync = off\nfull_page_writes = off\n"
       << "max_connections = 200\n";
  if (!conf) throw std::runtime_error("cannot append the test settings to " + (data_dir / "postgresql.conf").string());
}

std::string log_since(const fs::path& log, std::uintmax_t offset) {
  const std::string text = read_file(log);
  return offset < text.size() ? text.substr(offset) : std::string();
}

enum class PgStartOutcome { ready, port_taken, failed, timed_out };

}  // namespace

fs::path pg_server_bindir() { return pg_bindir(); }

PgCluster PgCluster::start(const fs::path& dir_in) {
  const fs::path dir = fs::absolute(dir_in);
  // The server's socket is DIR/.s.PGSQL.PORT, and a Unix socket path holds at most 107 bytes.
  if ((dir / ".s.PGSQL.65535").string().size() > 107) {
    throw std::runtime_error("the PostgreSQL test cluster directory " + dir.string() +
                             " is too long for its Unix socket (at most 92 bytes): choose a shorter one");
  }
  const fs::path bindir = pg_bindir();
  const fs::path data = dir / "data";
  if (fs::exists(data / "postmaster.pid")) stop_pg_cluster(dir);
  fs::remove_all(data);
  fs::create_directories(dir);
  const std::optional<PgOsUser> user = os_user_for_new_cluster();
  if (user && ::chown(dir.c_str(), user->uid, user->gid) != 0) {
    throw std::runtime_error("cannot give " + dir.string() + " to " + user->name + " (chown failed)");
  }

  const ProcessResult init = run_pg_program(
      user,
      {(bindir / "initdb").string(), "-D", data.string(), "-U", kPgUser, "--auth=trust", "-E", "UTF8",
       "--locale=C.UTF-8", "--no-sync"},
      dir, std::chrono::seconds(120));
  if (init.exit_code != 0) {
    std::string hint;
    if (user) {
      hint = "\n(initdb runs as " + user->name + ": every parent of " + dir.string() + " must be searchable by it)";
    }
    throw std::runtime_error(describe_pg_failure("initdb in " + data.string(), init) + hint);
  }
  write_test_settings(data, dir);

  const fs::path log = dir / "postgres.log";
  std::string last_log;
  for (int attempt = 1; attempt <= kPgPortAttempts; ++attempt) {
    const int port = closed_loopback_port();
    const std::uintmax_t log_offset = fs::exists(log) ? fs::file_size(log) : 0;
    const ProcessResult started = run_pg_program(
        user,
        {(bindir / "pg_ctl").string(), "-D", data.string(), "-l", log.string(), "-o", "-p " + std::to_string(port),
         "-W", "start"},
        dir, std::chrono::seconds(30));
    if (started.exit_code != 0) {
      throw std::runtime_error(describe_pg_failure("pg_ctl start in " + data.string(), started));
    }

    PgCluster cluster(dir, port);
    PgStartOutcome outcome = PgStartOutcome::timed_out;
    wait_until(
        [&] {
          if (pg_accepts_connections(cluster.url("postgres"))) {
            outcome = PgStartOutcome::ready;
            return true;
          }
          // The postmaster logs this line whenever it exits, also when it gave up starting.
          last_log = log_since(log, log_offset);
          if (last_log.find("database system is shut down") == std::string::npos) return false;
          outcome = last_log.find("could not bind") != std::string::npos ? PgStartOutcome::port_taken
                                                                         : PgStartOutcome::failed;
          return true;
        },
        kPgStartTimeout, std::chrono::milliseconds(20));
    if (outcome == PgStartOutcome::ready) return cluster;
    cluster.release();  // it is not running, or stop_pg_cluster below handles it
    if (outcome == PgStartOutcome::port_taken) continue;
    if (outcome == PgStartOutcome::timed_out) stop_pg_cluster(dir);
    throw std::runtime_error("PostgreSQL in " + data.string() + " did not start (" +
                             (outcome == PgStartOutcome::timed_out ? "no connection within 60 s" : "it exited") +
                             "); its log:\n" + last_log);
  }
  throw std::runtime_error("PostgreSQL in " + data.string() + " found no free loopback port in " +
                           std::to_string(kPgPortAttempts) + " attempts; its last log:\n" + last_log);
}

PgCluster::PgCluster(PgCluster&& other) noexcept
    : dir_(std::move(other.dir_)), port_(other.port_), running_(other.running_) {
  other.running_ = false;
}

PgCluster::~PgCluster() {
  if (!running_) return;
  try {
    stop();
  } catch (const std::exception& e) {
    report_failure(std::string("stopping the PostgreSQL test cluster: ") + e.what());
  }
}

void PgCluster::stop() {
  if (!running_) return;
  running_ = false;
  stop_pg_cluster(dir_);
}

void PgCluster::restart(RestartMode mode) {
  if (!running_) throw std::logic_error("restart of a PostgreSQL test cluster that is not running");
  const fs::path data = dir_ / "data";
  // -l again: without it the new postmaster would write to pg_ctl's output, which run_pg_program reads to EOF.
  const ProcessResult r = run_pg_program(
      os_user_owning(data),
      {(pg_bindir() / "pg_ctl").string(), "-D", data.string(), "-l", log_path().string(), "-m",
       mode == RestartMode::fast ? "fast" : "immediate", "-w", "-t", "60", "restart"},
      dir_, std::chrono::seconds(90));
  if (r.exit_code != 0) throw std::runtime_error(describe_pg_failure("pg_ctl restart in " + data.string(), r));
  if (!wait_until([&] { return pg_accepts_connections(url("postgres")); }, kPgStartTimeout,
                  std::chrono::milliseconds(20))) {
    throw std::runtime_error("PostgreSQL in " + data.string() + " did not accept connections within 60 s of a restart");
  }
}

std::string PgCluster::url(const std::string& dbname) const {
  const std::string server = std::string("postgresql://") + kPgUser + "@127.0.0.1:" + std::to_string(port_);
  return dbname.empty() ? server : pg_url_with_database(server, dbname);
}

void PgCluster::create_database(const std::string& name, const std::string& template_name) const {
  pg_create_database(url(), name, template_name);
}

void PgCluster::drop_database(const std::string& name) const { pg_drop_database(url(), name); }

void stop_pg_cluster(const fs::path& dir_in) {
  const fs::path dir = fs::absolute(dir_in);
  const fs::path data = dir / "data";
  if (!fs::exists(data / "postmaster.pid")) return;
  const ProcessResult r =
      run_pg_program(os_user_owning(data),
                     {(pg_bindir() / "pg_ctl").string(), "-D", data.string(), "-m", "fast", "-w", "-t", "60", "stop"},
                     dir, std::chrono::seconds(90));
  // pg_ctl also fails when the postmaster was already gone and left its pid file: only a live one is an error.
  if (r.exit_code != 0 && fs::exists(data / "postmaster.pid")) {
    const ProcessResult status =
        run_pg_program(os_user_owning(data), {(pg_bindir() / "pg_ctl").string(), "-D", data.string(), "status"},
                       dir, std::chrono::seconds(30));
    if (status.exit_code == 0) throw std::runtime_error(describe_pg_failure("pg_ctl stop in " + data.string(), r));
  }
}

}  // namespace agentworks::testing
