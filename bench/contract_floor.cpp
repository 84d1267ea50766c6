#include "contract_floor.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include "bench_run.hpp"

namespace agentworks::bench {

namespace {

int wait_exit(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return 126;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

ContractFloor::ContractFloor(const std::string& helper, const std::string& sync_path,
                             const std::vector<std::string>& argv, const std::vector<std::string>& env,
                             const std::string& stdin_payload)
    : sync_fd_(::open(sync_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) {
  if (sync_fd_ < 0) throw std::runtime_error("open " + sync_path + ": " + std::strerror(errno));
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
    throw std::runtime_error(std::string("socketpair: ") + std::strerror(errno));
  }
  std::vector<std::string> args = {helper, "3", stdin_payload};
  args.insert(args.end(), argv.begin(), argv.end());
  std::vector<std::string> vars = env;
  std::vector<char*> cargv = exec_strings(args);
  std::vector<char*> cenv = exec_strings(vars);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pair[1], 3);  // dup2 clears close-on-exec on the copy
  const int err = ::posix_spawn(&helper_, helper.c_str(), &actions, nullptr, cargv.data(), cenv.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(pair[1]);
  if (err != 0) {
    ::close(pair[0]);
    throw std::runtime_error("starting the contract floor's helper: " + std::string(std::strerror(err)));
  }
  helper_sock_ = pair[0];
}

ContractFloor::~ContractFloor() {
  ::close(helper_sock_);  // the helper reads EOF and exits
  if (helper_ > 0) wait_exit(helper_);
  ::close(sync_fd_);
}

std::int64_t ContractFloor::run(Shape shape, bool durable) {
  const char row[100] = {};
  const auto durable_write = [&] {
    if (!durable) return;
    if (::pwrite(sync_fd_, row, sizeof row, 0) != static_cast<ssize_t>(sizeof row) || ::fdatasync(sync_fd_) != 0) {
      throw std::runtime_error(std::string("durable write: ") + std::strerror(errno));
    }
  };
  const auto t0 = std::chrono::steady_clock::now();
  durable_write();  // the call stored before it starts
  char go = shape == Shape::isolated ? 'i' : 'p';
  char code = 0;
  if (::write(helper_sock_, &go, 1) != 1 || ::read(helper_sock_, &code, 1) != 1) {
    throw std::runtime_error("the contract floor's helper is gone");
  }
  if (code != 0) throw std::runtime_error("the contract floor's program exited " + std::to_string(code));
  durable_write();  // the outcome stored before it is reported
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace agentworks::bench
