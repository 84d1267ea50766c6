#include "bridge_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "agentworks/config.hpp"
#include "bridge_socket_client.hpp"

extern char** environ;

namespace agentworks::bench {
namespace {

// The benchmark's environment with HOME, XDG_* and AGENTWORKS_* replaced by the temp HOME's.
std::vector<std::string> bridge_environment(const std::string& root) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string kv = *e;
    if (kv.rfind("HOME=", 0) == 0 || kv.rfind("XDG_", 0) == 0 || kv.rfind("AGENTWORKS_", 0) == 0) continue;
    env.push_back(kv);
  }
  env.push_back("HOME=" + root + "/home");
  env.push_back("XDG_CONFIG_HOME=" + root + "/config");
  env.push_back("XDG_STATE_HOME=" + root + "/state");
  env.push_back("XDG_DATA_HOME=" + root + "/data");
  env.push_back("XDG_RUNTIME_DIR=" + root + "/run");
  return env;
}

}  // namespace

BridgeProcess::BridgeProcess(std::string binary, const std::string& parent) : binary_(std::move(binary)) {
  std::string templ = parent + "/aw-bb-XXXXXX";  // short: the socket path must fit in sun_path
  if (::mkdtemp(templ.data()) == nullptr) throw std::runtime_error("mkdtemp in " + parent + ": " + std::strerror(errno));
  root_ = templ;
  for (const char* d : {"home", "config", "state", "data", "run"}) {
    ::mkdir((root_ + "/" + d).c_str(), 0700);
  }
}

BridgeProcess::~BridgeProcess() { stop(); }

bool BridgeProcess::write_config(const std::string& server_url, const std::string& token, std::string* error) {
  try {
    Config c;
    c.server_url = server_url;
    c.token = token;
    c.kind = "login";
    save_config(config_path(), c);
    return true;
  } catch (const std::exception& e) {
    *error = std::string("writing the CLI config: ") + e.what();
    return false;
  }
}

bool BridgeProcess::start(std::chrono::milliseconds timeout, std::string* error) {
  ++runs_;
  const std::string out_path = root_ + "/bridge.out" + std::to_string(runs_);
  std::vector<std::string> args = {binary_, "--foreground"};
  std::vector<std::string> env = bridge_environment(root_);
  const pid_t bench_pid = ::getpid();
  pid_ = ::fork();
  if (pid_ < 0) {
    *error = std::string("fork: ") + std::strerror(errno);
    return false;
  }
  if (pid_ == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != bench_pid) ::_exit(127);
    const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (out >= 0) {
      ::dup2(out, STDOUT_FILENO);
      ::dup2(out, STDERR_FILENO);
    }
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<char*> envp;
    for (auto& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
    ::execve(binary_.c_str(), argv.data(), envp.data());
    ::_exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      *error = "the bridge exited during start (output: " + out_path + ")";
      return false;
    }
    BridgeSocketClient c;
    std::string ignored;
    if (c.connect(socket_path(), &ignored)) {
      try {
        const auto a = c.call({{"op", "ping"}}, std::chrono::seconds(2));
        if (a.value("pid", 0) == pid_) return true;
      } catch (const std::exception&) {
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  *error = "the bridge did not answer ping within " + std::to_string(timeout.count()) + " ms (output: " + out_path + ")";
  return false;
}

void BridgeProcess::stop() {
  if (pid_ <= 0) return;
  BridgeSocketClient c;
  std::string ignored;
  if (c.connect(socket_path(), &ignored)) {
    try {
      c.call({{"op", "shutdown"}}, std::chrono::seconds(5));
    } catch (const std::exception&) {
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  int status = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
}

void BridgeProcess::remove_home() {
  std::error_code ec;
  if (!root_.empty()) std::filesystem::remove_all(root_, ec);
}

}  // namespace agentworks::bench
