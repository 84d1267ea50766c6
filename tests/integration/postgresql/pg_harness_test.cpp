// The PostgreSQL test harness itself, runnable without a server that speaks PostgreSQL: a cluster of its own
// (as root through runuser), databases cloned from a template, the fixture program agentworks-test-pg, and
// ServerProcess on AGENTWORKS_TEST_STORE=postgresql driving a stand-in server script whose `migrate` makes a table.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "testing/pg_admin.hpp"
#include "testing/pg_cluster.hpp"
#include "testing/process.hpp"
#include "testing/server_process.hpp"
#include "testing/temp_home.hpp"
#include "testing/test_store.hpp"

#ifndef AGENTWORKS_TEST_PG_BIN
#error "AGENTWORKS_TEST_PG_BIN must be defined by CMake"
#endif

namespace agentworks::testing {
namespace {

namespace fs = std::filesystem;

// Sets an environment variable of this process for one test (the children it starts inherit it).
class ScopedEnvVar {
 public:
  ScopedEnvVar(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ScopedEnvVar(const ScopedEnvVar&) = delete;
  ScopedEnvVar& operator=(const ScopedEnvVar&) = delete;
  ~ScopedEnvVar() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// A temp directory initdb can reach when it runs as another user (as root): mkdtemp makes it 0700.
class ClusterParentDir : public TempDir {
 public:
  ClusterParentDir() : TempDir("aw-pgh-") {
    std::filesystem::permissions(path(), std::filesystem::perms::others_exec, std::filesystem::perm_options::add);
  }
};

std::string database_count(const std::string& server_url, const std::string& name) {
  return pg_query_value(pg_url_with_database(server_url, "postgres"),
                        "SELECT count(*) FROM pg_database WHERE datname = '" + name + "'");
}

std::string database_of(const std::string& url) {
  const std::string path = url.substr(url.rfind('/') + 1);
  return path.substr(0, path.find('?'));
}

TEST(PgCluster, StartsClonesATemplateAndStops) {
  const ClusterParentDir root;
  PgCluster cluster = PgCluster::start(root.path() / "pg");
  if (::geteuid() == 0) {
    struct stat st {};
    ASSERT_EQ(::stat((root.path() / "pg" / "data").c_str(), &st), 0);
    EXPECT_NE(st.st_uid, 0u) << "as root, initdb and postgres run as an unprivileged user";
  }
  EXPECT_TRUE(fs::exists(root.path() / "pg" / (".s.PGSQL." + std::to_string(cluster.port()))))
      << "the Unix socket is in the cluster directory";

  cluster.create_database("harness_template");
  pg_execute(cluster.url("harness_template"), "CREATE TABLE marker (v int)");
  pg_execute(cluster.url("harness_template"), "INSERT INTO marker VALUES (42)");
  cluster.create_database("harness_copy", "harness_template");
  EXPECT_EQ(pg_query_value(cluster.url("harness_copy"), "SELECT v FROM marker"), "42");

  cluster.drop_database("harness_copy");
  EXPECT_EQ(database_count(cluster.url(), "harness_copy"), "0");
  cluster.drop_database("harness_copy");  // dropping what is gone is no error

  const std::string url = cluster.url("postgres");
  cluster.stop();
  EXPECT_FALSE(pg_accepts_connections(url));
  EXPECT_FALSE(fs::exists(root.path() / "pg" / "data" / "postmaster.pid"));
}

TEST(PgCluster, MissingServerProgramsNameTheDebianPackage) {
  const ScopedEnvVar bindir("AGENTWORKS_TEST_PG_BINDIR", "/nonexistent/postgresql/bin");
  const ClusterParentDir root;
  try {
    PgCluster::start(root.path() / "pg");
    FAIL() << "started without initdb";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("postgresql-15"), std::string::npos) << e.what();
  }
}

TEST(PgCluster, DirectoryTooLongForTheSocketIsRefused) {
  const ClusterParentDir root;
  const fs::path deep = root.path() / std::string(100, 'd');
  try {
    PgCluster::start(deep);
    FAIL() << "started with a socket path over 107 bytes";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("shorter"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(deep)) << "nothing is created for a refused directory";
}

TEST(PgCluster, NamesThatAreNotPlainIdentifiersAreRefused) {
  EXPECT_THROW(check_pg_database_name("Upper"), std::invalid_argument);
  EXPECT_THROW(check_pg_database_name("x\"; DROP DATABASE y; --"), std::invalid_argument);
  EXPECT_THROW(check_pg_database_name(std::string(64, 'a')), std::invalid_argument);
  EXPECT_NO_THROW(check_pg_database_name("aw_test_12_3"));
  EXPECT_EQ(pg_url_with_database("postgresql://u@127.0.0.1:5/old?host=/s", "new"),
            "postgresql://u@127.0.0.1:5/new?host=/s");
}

TEST(TestStore, UnknownStoreIsRefused) {
  const ScopedEnvVar store("AGENTWORKS_TEST_STORE", "mysql");
  EXPECT_THROW(store_is_postgresql(), std::invalid_argument);
}

// A stand-in agentworks-server: records each command line, `migrate --store URL` makes a table in URL with psql,
// `account add NAME` prints a token, anything else prints the listening line and waits to be killed.
fs::path write_stand_in_server(const fs::path& dir) {
  const fs::path script = dir / "fake-server";
  std::ofstream(script) << "#!/bin/sh\n"
                           "printf '%s\\n' \"$*\" >> \"$AW_FAKE_SERVER_CALLS\"\n"
                           "case \"$1\" in\n"
                           "  migrate) exec /usr/lib/postgresql/15/bin/psql -X -q -v ON_ERROR_STOP=1 \"$3\" "
                           "-c 'CREATE TABLE migrated (v int)' -c 'INSERT INTO migrated VALUES (42)' ;;\n"
                           "  account) echo \"account $3 token: tok_fake_$3\"; exit 0 ;;\n"
                           "esac\n"
                           "echo 'listening on http://127.0.0.1:9'\n"
                           "exec sleep 300\n";
  fs::permissions(script, fs::perms::owner_all);
  return script;
}

TEST(PgFixture, TemplateFromMigrateAndADatabasePerServerDataDirectory) {
  const ClusterParentDir root;
  const fs::path pg_dir = root.path() / "pg";
  const ScopedEnvVar server_bin("AGENTWORKS_TEST_SERVER_BIN", write_stand_in_server(root.path()).string());
  const ScopedEnvVar calls("AW_FAKE_SERVER_CALLS", (root.path() / "calls").string());

  const ProcessResult started = run_process({AGENTWORKS_TEST_PG_BIN, "start", pg_dir.string()},
                                            RunOptions{{}, std::nullopt, std::chrono::seconds(180), {}});
  ASSERT_EQ(started.exit_code, 0) << started.out << started.err;
  std::string server_url;
  std::getline(std::ifstream(pg_dir / "url"), server_url);
  ASSERT_EQ(server_url.rfind("postgresql://agentworks@127.0.0.1:", 0), 0u) << server_url;
  EXPECT_EQ(pg_query_value(pg_url_with_database(server_url, "postgres"),
                           "SELECT datallowconn FROM pg_database WHERE datname = 'agentworks_template'"),
            "f")
      << "nobody may connect to the template, so cloning it never finds it busy";

  const ScopedEnvVar store("AGENTWORKS_TEST_STORE", "postgresql");
  const ScopedEnvVar dir("AGENTWORKS_TEST_PG_DIR", pg_dir.string());
  std::string own_db;
  {
    ServerProcess own;  // a temp data directory of its own
    ASSERT_FALSE(own.store_url().empty());
    own_db = database_of(own.store_url());
    EXPECT_EQ(pg_query_value(own.store_url(), "SELECT v FROM migrated"), "42") << "cloned from the template";
    EXPECT_EQ(own.add_account("alice"), "tok_fake_alice");

    const fs::path data = root.path() / "data";
    ServerOptions options;
    options.data_dir = data;
    std::string first_url;
    {
      const ServerProcess first(options);
      first_url = first.store_url();
      EXPECT_NE(first_url, own.store_url());
    }
    const ServerProcess again(options);
    EXPECT_EQ(again.store_url(), first_url) << "a new server on the same data directory finds the same database";

    const std::string recorded = read_file(root.path() / "calls");
    EXPECT_NE(recorded.find("--data " + own.data_dir().string() + " --store " + own.store_url()), std::string::npos)
        << recorded;
    EXPECT_NE(recorded.find("account add alice --store " + own.store_url()), std::string::npos) << recorded;
    EXPECT_EQ(recorded.find("account add alice --data"), std::string::npos) << recorded;
  }
  EXPECT_EQ(database_count(server_url, own_db), "0") << "a server's own directory takes its database with it";
  release_test_store(root.path() / "data");
  EXPECT_EQ(pg_query_value(pg_url_with_database(server_url, "postgres"),
                           "SELECT count(*) FROM pg_database WHERE datname LIKE 'aw_test_%'"),
            "0");

  const ProcessResult stopped = run_process({AGENTWORKS_TEST_PG_BIN, "stop", pg_dir.string()});
  EXPECT_EQ(stopped.exit_code, 0) << stopped.out << stopped.err;
  EXPECT_FALSE(fs::exists(pg_dir / "url"));
  EXPECT_FALSE(pg_accepts_connections(pg_url_with_database(server_url, "postgres")));
}

TEST(PgFixture, FailedMigrateFailsTheStartAndLeavesNoCluster) {
  const ClusterParentDir root;
  const fs::path pg_dir = root.path() / "pg";
  const fs::path failing = root.path() / "failing-server";
  std::ofstream(failing) << "#!/bin/sh\necho 'unknown command migrate' >&2\nexit 2\n";
  fs::permissions(failing, fs::perms::owner_all);
  const ScopedEnvVar server_bin("AGENTWORKS_TEST_SERVER_BIN", failing.string());

  const ProcessResult started = run_process({AGENTWORKS_TEST_PG_BIN, "start", pg_dir.string()},
                                            RunOptions{{}, std::nullopt, std::chrono::seconds(180), {}});
  EXPECT_EQ(started.exit_code, 1) << started.out << started.err;
  EXPECT_NE(started.err.find("migrate --store"), std::string::npos) << started.err;
  EXPECT_NE(started.err.find("unknown command migrate"), std::string::npos) << started.err;
  EXPECT_FALSE(fs::exists(pg_dir / "url"));
  EXPECT_FALSE(fs::exists(pg_dir / "data" / "postmaster.pid")) << "the cluster was stopped again";
}

// True when a process's command line mentions `text` (a postgres started with -D under a directory).
bool some_process_mentions(const std::string& text) {
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmdline = read_file(entry.path() / "cmdline");
    for (char& c : cmdline) c = (c == '\0') ? ' ' : c;
    if (cmdline.find(text) != std::string::npos) return true;
  }
  return false;
}

// Run by the next test in a child of its own, whose exit must stop the cluster it started.
TEST(TestStore, DISABLED_ServerOnAPrivateCluster) {
  const ServerProcess server;
  ASSERT_FALSE(server.store_url().empty());
  EXPECT_EQ(pg_query_value(server.store_url(), "SELECT v FROM migrated"), "42");
}

TEST(TestStore, PrivateClusterWithoutTheFixtureStopsAtExit) {
  const ClusterParentDir tmp;
  RunOptions options;
  options.env = {{"TMPDIR", tmp.path().string()},
                 {"AGENTWORKS_TEST_STORE", "postgresql"},
                 {"AGENTWORKS_TEST_PG_DIR", std::nullopt},
                 {"AGENTWORKS_TEST_SERVER_BIN", write_stand_in_server(tmp.path()).string()},
                 {"AW_FAKE_SERVER_CALLS", (tmp.path() / "calls").string()}};
  options.timeout = std::chrono::seconds(180);
  const ProcessResult r = run_process({fs::read_symlink("/proc/self/exe").string(),
                                       "--gtest_filter=TestStore.DISABLED_ServerOnAPrivateCluster",
                                       "--gtest_also_run_disabled_tests"},
                                      options);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("[  PASSED  ] 1 test"), std::string::npos) << r.out;
  EXPECT_NE(read_file(tmp.path() / "calls").find("migrate --store postgresql://"), std::string::npos);
  for (const auto& entry : fs::directory_iterator(tmp.path())) {
    EXPECT_NE(entry.path().filename().string().rfind("aw-pg-", 0), 0u) << entry.path() << " is left behind";
  }
  EXPECT_FALSE(some_process_mentions(tmp.path().string())) << "a postgres of the private cluster still runs";
}

TEST(PgFixture, BadCommandLineIsExit2) {
  const ProcessResult r = run_process({AGENTWORKS_TEST_PG_BIN, "begin"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("usage"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace agentworks::testing
