#include "testing/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace agentworks::testing {
namespace {

using Clock = std::chrono::steady_clock;

// argv/envp as NUL-terminated char* arrays, built before fork (nothing allocates in the child).
struct CStrings {
  std::vector<std::string> storage;
  std::vector<char*> pointers;
  explicit CStrings(std::vector<std::string> values) : storage(std::move(values)) {
    for (auto& s : storage) pointers.push_back(s.data());
    pointers.push_back(nullptr);
  }
  char** get() { return pointers.data(); }
};

int decode_status(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

void set_cloexec(int fd) { ::fcntl(fd, F_SETFD, FD_CLOEXEC); }

// In the child after fork: wire fds and exec; only async-signal-safe calls.
std::atomic<bool> g_die_with_parent{false};

[[noreturn]] void exec_child(int in_fd, int out_fd, int err_fd, char** argv, char** envp, const char* cwd,
                             pid_t parent) {
  if (parent > 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the parent died before the signal was armed
  }
  ::dup2(in_fd, 0);
  ::dup2(out_fd, 1);
  ::dup2(err_fd, 2);
  ::setpgid(0, 0);  // own process group: killing it never touches the test runner
  if (cwd != nullptr && ::chdir(cwd) != 0) ::_exit(127);
  ::execve(argv[0], argv, envp);
  static const char msg[] = "exec failed\n";
  [[maybe_unused]] auto n = ::write(2, msg, sizeof msg - 1);
  ::_exit(127);
}

// The pid a child checks it still has (0: the child does not die with its parent).
pid_t death_parent() { return g_die_with_parent.load() ? ::getpid() : 0; }

}  // namespace

void set_children_die_with_parent(bool on) { g_die_with_parent.store(on); }

std::vector<std::string> child_environment(const EnvOverrides& env) {
  std::map<std::string, std::string> merged;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string entry(*e);
    const auto eq = entry.find('=');
    if (eq == std::string::npos) continue;
    merged[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  for (const auto& [name, value] : env) {
    if (value) {
      merged[name] = *value;
    } else {
      merged.erase(name);
    }
  }
  std::vector<std::string> out;
  out.reserve(merged.size());
  for (const auto& [name, value] : merged) out.push_back(name + "=" + value);
  return out;
}

EnvOverrides unset_inherited(const std::string& prefix) {
  EnvOverrides out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string entry(*e);
    const auto eq = entry.find('=');
    if (eq != std::string::npos && entry.compare(0, prefix.size(), prefix) == 0) out[entry.substr(0, eq)] = std::nullopt;
  }
  return out;
}

EnvOverrides merge_env(const EnvOverrides& base, const EnvOverrides& extra) {
  EnvOverrides out = base;
  for (const auto& [k, v] : extra) out[k] = v;
  return out;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool process_alive(pid_t pid) {
  if (pid <= 0 || ::kill(pid, 0) != 0) return false;
  // "PID (comm) STATE ...": comm may contain spaces and parentheses, so look after the last ')'.
  const std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
  const auto close = stat.rfind(')');
  if (close == std::string::npos || close + 2 >= stat.size()) return false;
  return stat[close + 2] != 'Z';
}

ProcessResult run_process(const std::vector<std::string>& argv, const RunOptions& options) {
  if (argv.empty()) throw std::invalid_argument("run_process: empty argv");
  CStrings args(argv);
  CStrings envp(child_environment(options.env));
  const std::string cwd = options.cwd.string();

  int in_pipe[2], out_pipe[2], err_pipe[2];
  if (::pipe(in_pipe) != 0 || ::pipe(out_pipe) != 0 || ::pipe(err_pipe) != 0) {
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  }
  for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) set_cloexec(fd);

  const pid_t parent = death_parent();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    exec_child(in_pipe[0], out_pipe[1], err_pipe[1], args.get(), envp.get(), cwd.empty() ? nullptr : cwd.c_str(),
               parent);
  }

  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  int in_fd = in_pipe[1];
  const std::string input = options.stdin_data.value_or("");
  std::size_t written = 0;
  if (input.empty()) {
    ::close(in_fd);
    in_fd = -1;
  } else {
    ::fcntl(in_fd, F_SETFL, O_NONBLOCK);
  }

  ProcessResult result;
  const auto deadline = Clock::now() + options.timeout;
  int out_fd = out_pipe[0], err_fd = err_pipe[0];
  char buf[65536];
  while (out_fd >= 0 || err_fd >= 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      result.timed_out = true;
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
      break;
    }
    pollfd fds[3];
    nfds_t n = 0;
    if (out_fd >= 0) fds[n++] = {out_fd, POLLIN, 0};
    if (err_fd >= 0) fds[n++] = {err_fd, POLLIN, 0};
    if (in_fd >= 0) fds[n++] = {in_fd, POLLOUT, 0};
    const int ready = ::poll(fds, n, static_cast<int>(std::min<long long>(left, 100)));
    if (ready < 0 && errno != EINTR) break;
    for (nfds_t i = 0; i < n; ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].fd == in_fd) {
        const ssize_t w = ::write(in_fd, input.data() + written, input.size() - written);
        if (w > 0) written += static_cast<std::size_t>(w);
        if (w < 0 && errno != EAGAIN) written = input.size();
        if (written >= input.size()) {
          ::close(in_fd);
          in_fd = -1;
        }
        continue;
      }
      const ssize_t r = ::read(fds[i].fd, buf, sizeof buf);
      if (r > 0) {
        (fds[i].fd == out_fd ? result.out : result.err).append(buf, static_cast<std::size_t>(r));
      } else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
        if (fds[i].fd == out_fd) {
          ::close(out_fd);
          out_fd = -1;
        } else {
          ::close(err_fd);
          err_fd = -1;
        }
      }
    }
  }
  for (int fd : {in_fd, out_fd, err_fd}) {
    if (fd >= 0) ::close(fd);
  }
  // The pipes are closed; the child may still be exiting (or, if it handed its pipes to a grandchild, still
  // running past the timeout): wait for it within the remaining time, then kill.
  int status = 0;
  while (true) {
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) {
      result.exit_code = decode_status(status);
      break;
    }
    if (w < 0 && errno != EINTR) break;
    if (Clock::now() >= deadline) {
      result.timed_out = true;
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
      if (::waitpid(pid, &status, 0) == pid) result.exit_code = decode_status(status);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return result;
}

Child::Child(Child&& other) noexcept
    : pid_(other.pid_),
      exit_code_(other.exit_code_),
      stdout_path_(std::move(other.stdout_path_)),
      stderr_path_(std::move(other.stderr_path_)) {
  other.pid_ = -1;
}

Child& Child::operator=(Child&& other) noexcept {
  if (this != &other) {
    kill_and_wait();
    pid_ = other.pid_;
    exit_code_ = other.exit_code_;
    stdout_path_ = std::move(other.stdout_path_);
    stderr_path_ = std::move(other.stderr_path_);
    other.pid_ = -1;
  }
  return *this;
}

Child::~Child() { kill_and_wait(); }

Child Child::start(const std::vector<std::string>& argv, const EnvOverrides& env,
                   const std::filesystem::path& stdout_path, const std::filesystem::path& stderr_path,
                   const std::optional<std::string>& stdin_data) {
  if (argv.empty()) throw std::invalid_argument("Child::start: empty argv");
  CStrings args(argv);
  CStrings envp(child_environment(env));
  const int out_fd = ::open(stdout_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  const int err_fd = ::open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (out_fd < 0 || err_fd < 0) throw std::runtime_error("Child::start: cannot open output files");
  int in_pipe[2];
  if (::pipe(in_pipe) != 0) throw std::runtime_error("Child::start: pipe failed");
  set_cloexec(in_pipe[0]);
  set_cloexec(in_pipe[1]);

  const pid_t parent = death_parent();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) exec_child(in_pipe[0], out_fd, err_fd, args.get(), envp.get(), nullptr, parent);
  ::close(in_pipe[0]);
  ::close(out_fd);
  ::close(err_fd);
  if (stdin_data) {
    // Small inputs only (tokens); a pipe buffer holds 64 KiB.
    [[maybe_unused]] auto w = ::write(in_pipe[1], stdin_data->data(), stdin_data->size());
  }
  ::close(in_pipe[1]);

  Child child;
  child.pid_ = pid;
  child.stdout_path_ = stdout_path;
  child.stderr_path_ = stderr_path;
  return child;
}

bool Child::running() {
  if (pid_ <= 0 || exit_code_) return false;
  int status = 0;
  const pid_t w = ::waitpid(pid_, &status, WNOHANG);
  if (w == pid_) {
    exit_code_ = decode_status(status);
    return false;
  }
  return w == 0;
}

std::optional<int> Child::wait_exit(std::chrono::milliseconds timeout) {
  if (pid_ <= 0) return exit_code_;
  const auto deadline = Clock::now() + timeout;
  while (running()) {
    if (Clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return exit_code_;
}

void Child::signal(int sig) {
  if (pid_ > 0 && !exit_code_) ::kill(pid_, sig);
}

int Child::kill_and_wait() {
  if (pid_ <= 0) return -1;
  if (!exit_code_) {
    ::kill(-pid_, SIGKILL);  // its process group: also children it spawned
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    exit_code_ = decode_status(status);
  }
  const int code = *exit_code_;
  pid_ = -1;
  return code;
}

std::string Child::read_stdout() const { return read_file(stdout_path_); }
std::string Child::read_stderr() const { return read_file(stderr_path_); }

}  // namespace agentworks::testing
