// One agentworks-server for one test: started on 127.0.0.1 port 0 with its own data directory, its URL learned
// from the first stdout line ("listening on http://127.0.0.1:PORT", https with --tls-cert in extra_args) within a
// deadline. It can be killed (SIGKILL, like a crash) and started again on the same data directory. Destruction
// SIGKILLs it.
// With AGENTWORKS_TEST_STORE=postgresql it runs with `--store URL`, a PostgreSQL database of its data directory
// (testing/test_store.hpp); the logs stay in the data directory's parent as with SQLite.
// With AGENTWORKS_TEST_STORE=postgresql-replicas it is two servers on that database (the second on DIR-r2, same
// extra_args, logs server.r2.N.*) behind a round-robin TcpBalancer listening where one server would: url() and
// port() are the balancer's, kill/stop/start act on both, pid() is the first's.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "testing/process.hpp"
#include "testing/temp_home.hpp"

namespace agentworks::testing {

class TcpBalancer;

struct ServerOptions {
  std::string binary;                    // empty: server_binary()
  std::filesystem::path data_dir;        // empty: a fresh temp directory owned by the ServerProcess
  std::filesystem::path temp_parent;     // where that temp directory goes (empty: $TMPDIR or /tmp)
  std::vector<std::string> extra_args;   // limit flags, e.g. {"--rate-limit-per-hour", "3"}
  EnvOverrides env;                      // e.g. a TempHome's env()
  std::string listen = "127.0.0.1:0";
  std::string store_url;                 // a PostgreSQL database to share (a replica); empty: the test store
  std::chrono::milliseconds start_timeout{20'000};
};

class ServerProcess {
 public:
  explicit ServerProcess(ServerOptions options = {});  // starts the server; throws when it does not come up
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;
  ~ServerProcess();

  void start();    // no-op while running
  void kill();     // SIGKILL (a crash); the data directory stays
  void stop();     // SIGTERM, then SIGKILL if it does not exit within 10 s
  void restart();  // kill() then start() on the same data directory (a new port)
  bool running();  // with replicas: both are
  bool has_replicas() const { return replicas_; }
  // postgresql-replicas only (std::logic_error otherwise): SIGKILL replica `which` (0 the first, 1 the second); its
  // connections through the balancer break and new ones go to the other. start_replica() starts it again on the
  // same data directory, a new port behind the same balancer.
  void kill_replica(int which);
  void start_replica(int which);

  const std::string& url() const { return url_; }  // http://127.0.0.1:PORT (https:// with TLS)
  int port() const { return port_; }
  const std::filesystem::path& data_dir() const { return data_dir_; }
  // The PostgreSQL URL it runs on; empty on SQLite.
  const std::string& store_url() const { return store_url_; }
  pid_t pid() const { return child_.pid(); }

  // DIR/owner.token, trimmed; waits briefly for the file to appear.
  std::string owner_token() const;
  // `agentworks-server account add NAME --data DIR` (`--store URL` on PostgreSQL); returns the printed token (last
  // word of stdout).
  std::string add_account(const std::string& name) const;
  // Everything the server wrote to stdout and stderr in all its runs (for failure messages).
  std::string log() const;

 private:
  // Starts `child` and learns its URL from the first stdout line written after `skip_bytes` of `out`.
  std::string start_one(Child& child, const std::vector<std::string>& argv, const std::filesystem::path& out,
                        const std::filesystem::path& err, std::uintmax_t skip_bytes, int& port);
  void start_replicas();
  std::vector<std::string> server_argv(const std::filesystem::path& data_dir, const std::string& listen) const;

  ServerOptions options_;
  std::unique_ptr<TempDir> own_dir_;
  std::filesystem::path data_dir_;
  std::filesystem::path log_dir_;
  std::string store_url_;
  Child child_;
  int runs_ = 0;
  std::string url_;
  int port_ = 0;
  // postgresql-replicas only: the second server and the balancer in front of both.
  bool replicas_ = false;
  std::filesystem::path replica_data_dir_;
  Child replica_child_;
  int replica_runs_ = 0;
  int backend_ports_[2] = {0, 0};  // the replicas' own ports behind the balancer (0: not running)
  std::unique_ptr<TcpBalancer> balancer_;
  void point_balancer();
};

// Options for another replica of `primary`'s PostgreSQL store: the same database, a data directory of its own.
ServerOptions replica_options(const ServerProcess& primary, EnvOverrides env, std::vector<std::string> extra_args);

}  // namespace agentworks::testing
