#include "server_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace agentworks::bench {
namespace {

std::int64_t ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

ServerProcess::~ServerProcess() { stop(); }

bool ServerProcess::start(const std::string& binary, const std::vector<std::string>& extra_args,
                          const std::string& parent, std::chrono::milliseconds timeout, std::string* error) {
  std::string templ = parent + "/agentworks-bench-XXXXXX";
  if (::mkdtemp(templ.data()) == nullptr) {
    *error = "mkdtemp in " + parent + ": " + std::strerror(errno);
    return false;
  }
  data_dir_ = templ;

  std::vector<std::string> args = {binary, "--listen", "127.0.0.1:0", "--data", data_dir_ + "/data"};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  std::filesystem::create_directories(data_dir_ + "/data");
  const std::string log_path = data_dir_ + "/server.log";

  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  const pid_t bench_pid = ::getpid();
  pid_ = ::fork();
  if (pid_ < 0) {
    *error = std::string("fork: ") + std::strerror(errno);
    return false;
  }
  if (pid_ == 0) {
    // Child: die with the benchmark, stdout to the pipe, stderr to a log file.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != bench_pid) ::_exit(127);
    ::dup2(out[1], STDOUT_FILENO);
    const int log = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (log >= 0) ::dup2(log, STDERR_FILENO);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(binary.c_str(), argv.data());
    ::_exit(127);
  }
  ::close(out[1]);
  stdout_fd_ = out[0];

  // Read the first stdout line with a deadline.
  const auto start_time = std::chrono::steady_clock::now();
  std::string line;
  while (line.find('\n') == std::string::npos) {
    const auto left = timeout.count() - ms_since(start_time);
    pollfd pfd{stdout_fd_, POLLIN, 0};
    if (left <= 0 || ::poll(&pfd, 1, static_cast<int>(left)) <= 0) {
      *error = "server did not print its listening line within " + std::to_string(timeout.count()) +
               " ms (log: " + log_path + ")";
      return false;
    }
    char buf[256];
    const ssize_t n = ::read(stdout_fd_, buf, sizeof buf);
    if (n <= 0) {
      *error = "server exited before listening (log: " + log_path + ")";
      return false;
    }
    line.append(buf, static_cast<std::size_t>(n));
  }
  const std::string prefix = "listening on http://127.0.0.1:";
  const std::size_t at = line.find(prefix);
  if (at == std::string::npos) {
    *error = "unexpected first line from server: " + line.substr(0, line.find('\n'));
    return false;
  }
  port_ = static_cast<std::uint16_t>(std::strtoul(line.c_str() + at + prefix.size(), nullptr, 10));
  drain_ = std::thread([fd = stdout_fd_] {
    char buf[4096];
    while (::read(fd, buf, sizeof buf) > 0) {
    }
  });

  // The owner token is written on first start; wait for it to appear.
  const std::string token_path = data_dir_ + "/data/owner.token";
  while (ms_since(start_time) < timeout.count()) {
    std::ifstream in(token_path);
    std::string token;
    if (in && std::getline(in, token) && !token.empty()) {
      token_ = token;
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  *error = "server wrote no owner token at " + token_path;
  return false;
}

void ServerProcess::stop() {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    int status = 0;
    bool exited = false;
    for (int i = 0; i < 500 && !exited; ++i) {
      exited = ::waitpid(pid_, &status, WNOHANG) == pid_;
      if (!exited) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (!exited) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
    }
    pid_ = -1;
  }
  if (drain_.joinable()) drain_.join();  // the pipe hit EOF when the server exited
  if (stdout_fd_ >= 0) ::close(stdout_fd_);
  stdout_fd_ = -1;
  if (!data_dir_.empty() && std::getenv("AGENTWORKS_BENCH_KEEP_DATA") == nullptr) {
    std::error_code ec;
    std::filesystem::remove_all(data_dir_, ec);
  }
  data_dir_.clear();
}

std::optional<std::uint64_t> rss_kib(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) {
      std::istringstream fields(line.substr(6));
      std::uint64_t kib = 0;
      if (fields >> kib) return kib;
    }
  }
  return std::nullopt;
}

std::optional<double> cpu_seconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return std::nullopt;
  // Fields after the parenthesised command name: state is field 3, utime 14, stime 15.
  const std::size_t close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(close + 2));
  std::string field;
  unsigned long long utime = 0;
  unsigned long long stime = 0;
  for (int index = 3; index <= 15 && fields >> field; ++index) {
    if (index == 14) utime = std::stoull(field);
    if (index == 15) stime = std::stoull(field);
  }
  const long ticks = ::sysconf(_SC_CLK_TCK);
  if (ticks <= 0) return std::nullopt;
  return static_cast<double>(utime + stime) / static_cast<double>(ticks);
}

}  // namespace agentworks::bench
