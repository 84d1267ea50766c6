#include "testing/server_process.hpp"

#include <signal.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "testing/binaries.hpp"
#include "testing/tcp_balancer.hpp"
#include "testing/test_store.hpp"
#include "testing/wait.hpp"

namespace agentworks::testing {
namespace fs = std::filesystem;

namespace {
std::string trim(std::string s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  const auto last = s.find_last_not_of(" \t\r\n");
  return s.substr(first, last - first + 1);
}

// Logs are opened for append (a restart by a new ServerProcess reuses the names): a run reads only past this size.
std::uintmax_t size_of_file(const fs::path& file) {
  std::error_code ec;
  const auto size = fs::file_size(file, ec);
  return ec ? std::uintmax_t{0} : size;
}
}  // namespace

ServerProcess::ServerProcess(ServerOptions options) : options_(std::move(options)) {
  if (options_.data_dir.empty()) {
    own_dir_ = std::make_unique<TempDir>("aw-srv-", options_.temp_parent);
    data_dir_ = own_dir_->path() / "data";
    log_dir_ = own_dir_->path();
  } else {
    data_dir_ = options_.data_dir;
    log_dir_ = data_dir_.parent_path();
  }
  if (!options_.store_url.empty()) {
    store_url_ = options_.store_url;  // a replica on another server's database
  } else if (store_is_postgresql()) {
    store_url_ = test_store_url(data_dir_);
  }
  if (store_has_replicas()) {
    replicas_ = true;
    replica_data_dir_ = fs::path(data_dir_.string() + "-r2");  // beside the first: it goes with the first's parent
  }
  start();
}

ServerProcess::~ServerProcess() {
  child_.kill_and_wait();
  replica_child_.kill_and_wait();
  balancer_.reset();
  // A directory of its own goes with this object, so its database goes too; a caller's directory may get another
  // server (a restart by a new ServerProcess), which must find the data: test_store drops that one later.
  if (!store_url_.empty() && own_dir_ && options_.store_url.empty()) release_test_store(data_dir_);
}

std::vector<std::string> ServerProcess::server_argv(const fs::path& data_dir, const std::string& listen) const {
  const std::string binary = options_.binary.empty() ? server_binary() : options_.binary;
  std::vector<std::string> argv = {binary, "--listen", listen, "--data", data_dir.string()};
  if (!store_url_.empty()) argv.insert(argv.end(), {"--store", store_url_});
  argv.insert(argv.end(), options_.extra_args.begin(), options_.extra_args.end());
  return argv;
}

std::string ServerProcess::start_one(Child& child, const std::vector<std::string>& argv, const fs::path& out,
                                     const fs::path& err, std::uintmax_t skip_bytes, int& port) {
  child = Child::start(argv, options_.env, out, err);

  // The first stdout line carries the URL; poll the file until it has a full line or the server dies.
  const std::regex pattern(R"(^listening on (https?://127\.0\.0\.1:([0-9]+))\s*$)");
  std::string first_line;
  const bool ready = wait_until(
      [&] {
        std::string text = read_file(out);
        text.erase(0, std::min<std::uintmax_t>(skip_bytes, text.size()));
        const auto nl = text.find('\n');
        if (nl != std::string::npos) {
          first_line = text.substr(0, nl);
          return true;
        }
        return !child.running();
      },
      options_.start_timeout);
  std::smatch m;
  if (!ready || !std::regex_match(first_line, m, pattern)) {
    const std::string why = !ready ? "no first stdout line within the deadline"
                                   : (first_line.empty() ? "server exited before printing its URL"
                                                         : "unexpected first line: '" + first_line + "'");
    child.kill_and_wait();
    throw std::runtime_error("agentworks-server did not start: " + why + "\n" + log());
  }
  port = std::stoi(m[2].str());
  return m[1].str();
}

void ServerProcess::start() {
  if (replicas_) {
    start_replicas();
    return;
  }
  if (child_.started() && child_.running()) return;
  ++runs_;
  const fs::path out = log_dir_ / ("server." + std::to_string(runs_) + ".stdout");
  const fs::path err = log_dir_ / ("server." + std::to_string(runs_) + ".stderr");
  // A restart by a new ServerProcess on the same directory appends to the earlier run's log: its old first line
  // must not read as this run's readiness.
  url_ = start_one(child_, server_argv(data_dir_, options_.listen), out, err, size_of_file(out), port_);
}

void ServerProcess::start_replicas() {
  if (running() && balancer_) return;
  kill();
  // The balancer listens where the one server would; the servers behind it on ports of their own.
  const std::regex listen_pattern(R"(^127\.0\.0\.1:([0-9]+)$)");
  std::smatch listen;
  if (!std::regex_match(options_.listen, listen, listen_pattern)) {
    throw std::invalid_argument("listen " + options_.listen +
                                ": with AGENTWORKS_TEST_STORE=postgresql-replicas only 127.0.0.1:PORT is supported");
  }
  // One after the other: the first creates the owner account, whose token owner_token() reads from its directory.
  ++runs_;
  const fs::path out = log_dir_ / ("server." + std::to_string(runs_) + ".stdout");
  const fs::path err = log_dir_ / ("server." + std::to_string(runs_) + ".stderr");
  int first_port = 0;
  const std::string first_url =
      start_one(child_, server_argv(data_dir_, "127.0.0.1:0"), out, err, size_of_file(out), first_port);
  ++replica_runs_;
  const fs::path out2 = log_dir_ / ("server.r2." + std::to_string(replica_runs_) + ".stdout");
  const fs::path err2 = log_dir_ / ("server.r2." + std::to_string(replica_runs_) + ".stderr");
  int second_port = 0;
  start_one(replica_child_, server_argv(replica_data_dir_, "127.0.0.1:0"), out2, err2, size_of_file(out2),
            second_port);
  backend_ports_[0] = first_port;
  backend_ports_[1] = second_port;
  balancer_ = std::make_unique<TcpBalancer>(std::vector<int>{first_port, second_port}, std::stoi(listen[1].str()));
  port_ = balancer_->port();
  url_ = first_url.substr(0, first_url.find("://")) + "://127.0.0.1:" + std::to_string(port_);
}

void ServerProcess::kill() {
  child_.kill_and_wait();
  if (!replicas_) return;
  replica_child_.kill_and_wait();
  balancer_.reset();  // its port refuses connections, as a dead server's does
}

void ServerProcess::point_balancer() {
  std::vector<int> ports;
  for (const int p : backend_ports_) {
    if (p != 0) ports.push_back(p);
  }
  balancer_->set_backends(ports);
}

void ServerProcess::kill_replica(int which) {
  if (!replicas_ || !balancer_ || (which != 0 && which != 1)) {
    throw std::logic_error("kill_replica needs AGENTWORKS_TEST_STORE=postgresql-replicas and replica 0 or 1");
  }
  (which == 0 ? child_ : replica_child_).kill_and_wait();
  backend_ports_[which] = 0;
  point_balancer();
}

void ServerProcess::start_replica(int which) {
  if (!replicas_ || !balancer_ || (which != 0 && which != 1)) {
    throw std::logic_error("start_replica needs AGENTWORKS_TEST_STORE=postgresql-replicas and replica 0 or 1");
  }
  Child& child = which == 0 ? child_ : replica_child_;
  if (child.started() && child.running()) return;
  const int run = which == 0 ? ++runs_ : ++replica_runs_;
  const std::string stem = which == 0 ? "server." : "server.r2.";
  const fs::path out = log_dir_ / (stem + std::to_string(run) + ".stdout");
  const fs::path err = log_dir_ / (stem + std::to_string(run) + ".stderr");
  int port = 0;
  start_one(child, server_argv(which == 0 ? data_dir_ : replica_data_dir_, "127.0.0.1:0"), out, err,
            size_of_file(out), port);
  backend_ports_[which] = port;
  point_balancer();
}

void ServerProcess::stop() {
  if (!child_.started()) return;
  child_.signal(SIGTERM);
  if (replicas_ && replica_child_.started()) replica_child_.signal(SIGTERM);
  if (!child_.wait_exit(std::chrono::seconds(10))) child_.kill_and_wait();
  child_.kill_and_wait();
  if (!replicas_) return;
  if (replica_child_.started() && !replica_child_.wait_exit(std::chrono::seconds(10))) replica_child_.kill_and_wait();
  replica_child_.kill_and_wait();
  balancer_.reset();
}

void ServerProcess::restart() {
  kill();
  start();
}

bool ServerProcess::running() {
  const bool first = child_.started() && child_.running();
  if (!replicas_) return first;
  return first && replica_child_.started() && replica_child_.running();
}

std::string ServerProcess::owner_token() const {
  const fs::path file = data_dir_ / "owner.token";
  std::string token;
  wait_until(
      [&] {
        token = trim(read_file(file));
        return !token.empty();
      },
      std::chrono::seconds(5));
  if (token.empty()) throw std::runtime_error("no owner token in " + file.string());
  return token;
}

std::string ServerProcess::add_account(const std::string& name) const {
  std::vector<std::string> argv = {server_binary(), "account", "add", name};
  if (store_url_.empty()) {
    argv.insert(argv.end(), {"--data", data_dir_.string()});
  } else {
    argv.insert(argv.end(), {"--store", store_url_});
  }
  const ProcessResult r = run_process(argv, RunOptions{options_.env, std::nullopt, std::chrono::seconds(20), {}});
  if (r.exit_code != 0) {
    throw std::runtime_error("account add " + name + " failed (exit " + std::to_string(r.exit_code) + "): " +
                             r.out + r.err);
  }
  std::istringstream words(r.out);
  std::string word, last;
  while (words >> word) last = word;
  if (last.empty()) throw std::runtime_error("account add " + name + " printed no token");
  return last;
}

std::string ServerProcess::log() const {
  std::ostringstream ss;
  for (int i = 1; i <= runs_; ++i) {
    ss << "--- server run " << i << " stdout ---\n"
       << read_file(log_dir_ / ("server." + std::to_string(i) + ".stdout")) << "--- server run " << i
       << " stderr ---\n"
       << read_file(log_dir_ / ("server." + std::to_string(i) + ".stderr"));
  }
  for (int i = 1; i <= replica_runs_; ++i) {
    ss << "--- replica 2 run " << i << " stdout ---\n"
       << read_file(log_dir_ / ("server.r2." + std::to_string(i) + ".stdout")) << "--- replica 2 run " << i
       << " stderr ---\n"
       << read_file(log_dir_ / ("server.r2." + std::to_string(i) + ".stderr"));
  }
  return ss.str();
}

ServerOptions replica_options(const ServerProcess& primary, EnvOverrides env, std::vector<std::string> extra_args) {
  ServerOptions o;
  o.env = std::move(env);
  o.extra_args = std::move(extra_args);
  o.store_url = primary.store_url();
  return o;
}

}  // namespace agentworks::testing
