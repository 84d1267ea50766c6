#include "testing/test_store.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "testing/binaries.hpp"
#include "testing/pg_admin.hpp"
#include "testing/pg_cluster.hpp"
#include "testing/process.hpp"
#include "testing/temp_home.hpp"

namespace agentworks::testing {
namespace fs = std::filesystem;

namespace {

std::string env_value(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string();
}

std::string first_line_of(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_first_of("\r\n", first) - first);
}

// A database this process made, on the server it made it on (the environment may name another one by now).
struct TestDatabase {
  std::string server_url;
  std::string name;
};

// The databases this process made, by data directory, and the private cluster when it started one. Its
// destructor (at exit) drops what is left, then stops the private cluster.
class TestStoreRegistry {
 public:
  ~TestStoreRegistry() {
    const std::lock_guard lock(mutex_);
    for (const auto& [dir, db] : databases_) drop_quietly(db);
    databases_.clear();
    private_cluster_.reset();
    private_dir_.reset();
  }

  std::string server_url() {
    const std::lock_guard lock(mutex_);
    return server_url_locked();
  }

  std::string url_for(const fs::path& data_dir) {
    const std::lock_guard lock(mutex_);
    const fs::path key = fs::absolute(data_dir).lexically_normal();
    const std::string server = server_url_locked();
    if (const auto it = databases_.find(key); it != databases_.end()) {
      if (it->second.server_url == server) return pg_url_with_database(server, it->second.name);
      drop_quietly(it->second);  // made on a cluster the environment no longer names
      databases_.erase(it);
    }
    drop_gone_directories_locked(key);
    static std::atomic<int> counter{0};
    const std::string db = "aw_test_" + std::to_string(::getpid()) + "_" + std::to_string(++counter);
    // A database of that name is left by a dead process whose pid this one has now: it is nobody's.
    pg_drop_database(server, db);
    pg_create_database(server, db, kPgTemplateDatabase);
    databases_[key] = TestDatabase{server, db};
    return pg_url_with_database(server, db);
  }

  void release(const fs::path& data_dir) {
    const std::lock_guard lock(mutex_);
    const auto it = databases_.find(fs::absolute(data_dir).lexically_normal());
    if (it == databases_.end()) return;
    drop_quietly(it->second);
    databases_.erase(it);
  }

 private:
  std::string server_url_locked() {
    const std::string pg_dir = env_value("AGENTWORKS_TEST_PG_DIR");
    if (!pg_dir.empty()) {
      const fs::path file = fs::path(pg_dir) / "url";
      const std::string url = first_line_of(read_file(file));
      if (url.empty()) {
        throw std::runtime_error("AGENTWORKS_TEST_PG_DIR=" + pg_dir + " has no url file: start the cluster with "
                                 "`agentworks-test-pg start " + pg_dir + "` (the CTest fixture postgresql does)");
      }
      return url;
    }
    if (!private_cluster_) {
      private_dir_ = std::make_unique<TempDir>("aw-pg-");
      // As root, initdb and postgres run as another user, which must be able to reach the cluster inside.
      fs::permissions(private_dir_->path(), fs::perms::others_exec, fs::perm_options::add);
      // Kept only with its template: when migrate fails, the cluster stops here and the next server tries again.
      auto cluster = std::make_unique<PgCluster>(PgCluster::start(private_dir_->path() / "cluster"));
      create_pg_template_database(cluster->url());
      private_cluster_ = std::move(cluster);
    }
    return private_cluster_->url();
  }

  // Restarted servers reuse their directory's database; a directory whose parent is gone (the test's temp home
  // or the ServerProcess's temp dir, removed) will not come back. The parent, not the directory: a server makes
  // its data directory only when it starts, after its database was chosen.
  void drop_gone_directories_locked(const fs::path& keep) {
    for (auto it = databases_.begin(); it != databases_.end();) {
      if (it->first != keep && !fs::exists(it->first.parent_path())) {
        drop_quietly(it->second);
        it = databases_.erase(it);
      } else {
        ++it;
      }
    }
  }

  static void drop_quietly(const TestDatabase& db) {
    try {
      pg_drop_database(db.server_url, db.name);
    } catch (const std::exception& e) {
      // A server still holding it, or a cluster already gone at exit: the database is left, never the test failed.
      std::fprintf(stderr, "agentworks tests: test database %s not dropped: %s\n", db.name.c_str(), e.what());
    }
  }

  std::mutex mutex_;
  std::map<fs::path, TestDatabase> databases_;
  std::unique_ptr<TempDir> private_dir_;  // declared before the cluster: the cluster stops before its directory goes
  std::unique_ptr<PgCluster> private_cluster_;
};

TestStoreRegistry& test_store_registry() {
  static TestStoreRegistry r;
  return r;
}

}  // namespace

bool store_is_postgresql() {
  const std::string store = env_value("AGENTWORKS_TEST_STORE");
  if (store.empty() || store == "sqlite") return false;
  if (store == "postgresql" || store == "postgresql-replicas") return true;
  throw std::invalid_argument("AGENTWORKS_TEST_STORE=" + store +
                              " is not a store: use postgresql, postgresql-replicas, or sqlite / unset");
}

bool store_has_replicas() { return store_is_postgresql() && env_value("AGENTWORKS_TEST_STORE") == "postgresql-replicas"; }

std::string test_store_url(const fs::path& data_dir) { return test_store_registry().url_for(data_dir); }

void release_test_store(const fs::path& data_dir) { test_store_registry().release(data_dir); }

std::string test_pg_server_url() { return test_store_registry().server_url(); }

void create_pg_template_database(const std::string& server_url) {
  pg_drop_database(server_url, kPgTemplateDatabase);  // one left by an earlier run
  pg_create_database(server_url, kPgTemplateDatabase);
  const std::string url = pg_url_with_database(server_url, kPgTemplateDatabase);
  RunOptions options;
  options.timeout = std::chrono::seconds(120);
  const ProcessResult r = run_process({server_binary(), "migrate", "--store", url}, options);
  if (r.exit_code != 0) {
    throw std::runtime_error("`" + server_binary() + " migrate --store " + url + "` failed (exit " +
                             std::to_string(r.exit_code) + (r.timed_out ? ", timed out" : "") + "):\n" + r.out + r.err);
  }
  pg_execute(pg_url_with_database(server_url, "postgres"),
             std::string("ALTER DATABASE ") + kPgTemplateDatabase + " ALLOW_CONNECTIONS false");
}

}  // namespace agentworks::testing
