#include "bench_pg_store.hpp"

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "testing/pg_admin.hpp"
#include "testing/process.hpp"
#include "testing/temp_home.hpp"

namespace agentworks::bench {

namespace {

void turn_fsync_on(const std::string& maintenance) {
  testing::pg_execute(maintenance, "ALTER SYSTEM SET fsync = on");
  testing::pg_execute(maintenance, "ALTER SYSTEM SET full_page_writes = on");
  testing::pg_execute(maintenance, "SELECT pg_reload_conf()");
  // The reload is asynchronous: wait until a new backend sees the setting.
  for (int i = 0; i < 200 && testing::pg_query_value(maintenance, "SHOW fsync") != "on"; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (testing::pg_query_value(maintenance, "SHOW fsync") != "on") throw std::runtime_error("fsync is still off");
}

}  // namespace

BenchPgStore::BenchPgStore(const std::string& server_binary, const std::filesystem::path& parent, bool durable)
    : dir_(testing::make_temp_dir("aw-bench-pg-", parent)) {
  try {
    set_up(server_binary, durable);
  } catch (...) {
    remove();  // a failed start leaves no cluster and no directory behind
    throw;
  }
}

void BenchPgStore::set_up(const std::string& server_binary, bool durable) {
  try {
    cluster_ = std::make_unique<testing::PgCluster>(testing::PgCluster::start(dir_));
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("starting the PostgreSQL cluster failed: ") + e.what());
  }
  const std::string maintenance = cluster_->url("postgres");
  try {
    if (durable) turn_fsync_on(maintenance);
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("turning fsync on in the PostgreSQL cluster failed: ") + e.what());
  }
  cluster_->create_database("bench");
  url_ = cluster_->url("bench");
  const testing::ProcessResult migrated = testing::run_process({server_binary, "migrate", "--store", url_});
  if (migrated.exit_code != 0) {
    throw std::runtime_error("`agentworks-server migrate --store " + url_ + "` failed (exit " +
                             std::to_string(migrated.exit_code) + "): " + migrated.err + migrated.out);
  }
}

BenchPgStore::~BenchPgStore() { remove(); }

pid_t BenchPgStore::postmaster_pid() const {
  std::ifstream in(cluster_->dir() / "data" / "postmaster.pid");
  long pid = 0;
  return in >> pid ? static_cast<pid_t>(pid) : 0;
}

void BenchPgStore::remove() {
  try {
    if (cluster_) cluster_->stop();
  } catch (...) {
    // A cluster that will not stop is left in dir_ for inspection; the benchmark's result is already printed.
    return;
  }
  if (std::getenv("AGENTWORKS_BENCH_KEEP_DATA") == nullptr) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
}

}  // namespace agentworks::bench
