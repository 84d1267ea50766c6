#include "process/keeper_launcher.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include "agentworks/error.hpp"

namespace agentworks::functions {
namespace {

// A fork of a small process answers in well under a millisecond; this bounds a launcher that is stopped or stuck.
constexpr int kReplyTimeoutMs = 1000;

[[noreturn]] void launch_error(const std::string& what) {
  throw Error(ErrorCode::internal, "cannot start the execution: " + what);
}

// The launcher of this thread: PR_SET_PDEATHSIG follows the thread that started a process, so a launcher shared
// between threads would die with the first of them to end, and every keeper it forked with it.
class Launcher {
 public:
  ~Launcher() { stop(); }

  LaunchedKeeper launch(const std::string& keeper, const int (&fds)[5]) {
    if (keeper != keeper_) stop();
    for (int attempt = 0;; ++attempt) {
      if (sock_ < 0) start(keeper);
      std::string why;
      if (auto launched = request(fds, &why); launched.pid > 0) return launched;
      stop();  // gone, stuck or confused: never reused
      if (attempt == 1 || !why.empty()) launch_error(why.empty() ? "the keeper launcher does not answer" : why);
    }
  }

 private:
  void start(const std::string& keeper) {
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0)
      launch_error(std::string("socketpair: ") + std::strerror(errno));
    std::string parent = std::to_string(::getpid());
    std::string launcher_flag = "--launcher", parent_flag = "--parent", program = keeper;
    char* argv[] = {program.data(), launcher_flag.data(), parent_flag.data(), parent.data(), nullptr};
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
    // Not the host's stdin and stdout (a parent reading the host's output to its end must not wait for the
    // launcher); its stderr stays the host's, for what it has to say.
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, pair[1], 3);
    posix_spawn_file_actions_addclosefrom_np(&actions, 4);
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);  // the host ignores it; the keepers and the programs get the default
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    static char* const kNoEnvironment[] = {nullptr};  // each keeper gets its call's environment
    pid_t pid = -1;
    const int rc = ::posix_spawn(&pid, argv[0], &actions, &attr, argv, kNoEnvironment);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    ::close(pair[1]);
    if (rc != 0) {
      ::close(pair[0]);
      launch_error("posix_spawn " + keeper + ": " + std::strerror(rc));
    }
    sock_ = pair[0];
    pid_ = pid;
    keeper_ = keeper;
  }

  void stop() {
    if (sock_ >= 0) ::close(sock_);  // a launcher that reads its end of the socket exits
    sock_ = -1;
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
    pid_ = -1;
  }

  // One request and its reply. pid <= 0: no launched keeper; *why says what the launcher refused, and stays empty
  // when the launcher itself is gone or silent (then a new one may be tried).
  LaunchedKeeper request(const int (&fds)[5], std::string* why) {
    char byte = 'L';
    iovec iov{&byte, 1};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(5 * sizeof(int))] = {};
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(5 * sizeof(int));
    std::memcpy(CMSG_DATA(c), fds, 5 * sizeof(int));
    ssize_t n = 0;
    while ((n = ::sendmsg(sock_, &msg, MSG_NOSIGNAL)) < 0 && errno == EINTR) {
    }
    if (n != 1) return {};
    pollfd p{sock_, POLLIN, 0};
    int ready = 0;
    while ((ready = ::poll(&p, 1, kReplyTimeoutMs)) < 0 && errno == EINTR) {
    }
    if (ready != 1) return {};
    char text[512];
    iovec reply_iov{text, sizeof text - 1};
    msghdr reply{};
    reply.msg_iov = &reply_iov;
    reply.msg_iovlen = 1;
    alignas(cmsghdr) char reply_control[CMSG_SPACE(sizeof(int))] = {};
    reply.msg_control = reply_control;
    reply.msg_controllen = sizeof reply_control;
    while ((n = ::recvmsg(sock_, &reply, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {
    }
    if (n <= 0) return {};
    text[n] = '\0';
    int pidfd = -1;
    if (cmsghdr* rc = CMSG_FIRSTHDR(&reply); rc != nullptr && rc->cmsg_type == SCM_RIGHTS)
      std::memcpy(&pidfd, CMSG_DATA(rc), sizeof(int));
    if (std::strncmp(text, "pid ", 4) == 0 && pidfd >= 0) return {static_cast<pid_t>(std::atol(text + 4)), pidfd};
    if (pidfd >= 0) ::close(pidfd);
    *why = std::strncmp(text, "error ", 6) == 0 ? std::string(text + 6) : "the keeper launcher answered " + std::string(text);
    return {};
  }

  int sock_ = -1;
  pid_t pid_ = -1;
  std::string keeper_;
};

thread_local Launcher this_threads_launcher;

}  // namespace

int memfd_holding(const char* name, const std::string& bytes) {
  const int fd = ::memfd_create(name, MFD_CLOEXEC);
  if (fd < 0) launch_error(std::string("memfd_create: ") + std::strerror(errno));
  std::size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = n < 0 ? std::strerror(errno) : "no progress";
      ::close(fd);
      launch_error(std::string("writing ") + name + ": " + why);
    }
    written += static_cast<std::size_t>(n);
  }
  ::lseek(fd, 0, SEEK_SET);
  return fd;
}

LaunchedKeeper launch_keeper(const std::string& keeper, int in, int out, int err, int status, const std::string& cwd,
                             const std::vector<std::string>& command, const std::vector<std::string>& env) {
  std::string request = cwd;
  request += '\0';
  request += std::to_string(command.size());
  request += '\0';
  for (const auto& part : {command, env})
    for (const auto& field : part) {
      request += field;
      request += '\0';
    }
  const int memfd = memfd_holding("agentworks-launch-request", request);
  const int fds[5] = {in, out, err, status, memfd};
  try {
    const LaunchedKeeper launched = this_threads_launcher.launch(keeper, fds);
    ::close(memfd);
    return launched;
  } catch (...) {
    ::close(memfd);
    throw;
  }
}

}  // namespace agentworks::functions
