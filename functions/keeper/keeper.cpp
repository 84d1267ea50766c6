#include "keeper/keeper.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <poll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern char** environ;

namespace agentworks::functions::keeper {
namespace {

constexpr int kStatusFd = 3;

void report(const std::string& line) {
  const std::string text = line + "\n";
  [[maybe_unused]] const ssize_t n = ::write(kStatusFd, text.data(), text.size());
}

bool write_file(const char* path, const std::string& text) {
  const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  return ok;
}

// Makes the keeper's next child the first process (pid 1) of a new PID namespace: when that process dies the
// kernel kills everything in the namespace, and from inside nothing can signal it or see the keeper and the
// server. As root that is CLONE_NEWPID alone; otherwise a user namespace that maps only the server's own user
// and group to themselves comes first (unprivileged user namespaces). False where neither is allowed: then the
// program runs in a process group of its own under this subreaper, and the server kills that group itself.
enum class Isolation { pid_namespace, none, failed };
Isolation enter_pid_namespace() {
  // A mount namespace too: the namespace's first process mounts a /proc of its own (below).
  if (::unshare(CLONE_NEWPID | CLONE_NEWNS) == 0) return Isolation::pid_namespace;
  const uid_t uid = ::geteuid();
  const gid_t gid = ::getegid();
  if (::unshare(CLONE_NEWUSER) != 0) return Isolation::none;
  // The same ids inside: the program sees itself as the server's user, not as root. A user namespace without
  // them would show the program an unmapped user: refused, never run that way.
  if (!write_file("/proc/self/setgroups", "deny") ||
      !write_file("/proc/self/uid_map", std::to_string(uid) + " " + std::to_string(uid) + " 1") ||
      !write_file("/proc/self/gid_map", std::to_string(gid) + " " + std::to_string(gid) + " 1")) {
    report(std::string("spawn_failed cannot map the server's user into the execution's user namespace: ") +
           std::strerror(errno));
    return Isolation::failed;
  }
  return ::unshare(CLONE_NEWPID | CLONE_NEWNS) == 0 ? Isolation::pid_namespace : Isolation::none;
}

// Children of this process (descendants re-parented to it as the subreaper), from /proc.
std::vector<pid_t> own_children() {
  std::vector<pid_t> out;
  DIR* d = ::opendir("/proc");
  if (d == nullptr) return out;
  const pid_t self = ::getpid();
  while (dirent* e = ::readdir(d)) {
    char* end = nullptr;
    const long pid = std::strtol(e->d_name, &end, 10);
    if (pid <= 0 || *end != '\0') continue;
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE* f = std::fopen(path, "re");
    if (f == nullptr) continue;
    char buf[512];
    const std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
    std::fclose(f);
    buf[n] = '\0';
    const char* close_paren = std::strrchr(buf, ')');  // the name may hold spaces and parentheses
    if (close_paren == nullptr) continue;
    char state = 0;
    long ppid = 0;
    if (std::sscanf(close_paren + 1, " %c %ld", &state, &ppid) == 2 && ppid == self)
      out.push_back(static_cast<pid_t>(pid));
  }
  ::closedir(d);
  return out;
}

// Kills the program's tree and reaps it all. In a PID namespace of its own one signal to -1 reaches every process
// in it. Otherwise: the program's group, then every other descendant re-parented here; when the program left
// nothing behind (the usual case) there is no child left to wait for and /proc is never read.
void kill_tree(pid_t group, bool namespace_init) {
  if (namespace_init) {
    ::kill(-1, SIGKILL);
    while (::waitpid(-1, nullptr, 0) > 0 || errno == EINTR) {
    }
    return;
  }
  ::kill(-group, SIGKILL);
  for (;;) {
    pid_t r = 0;
    while ((r = ::waitpid(-1, nullptr, WNOHANG)) > 0) {
    }
    if (r < 0) return;  // ECHILD: nothing is left
    for (const pid_t pid : own_children()) {
      ::kill(-pid, SIGKILL);  // a descendant that made its own group takes it along
      ::kill(pid, SIGKILL);
    }
    if (::waitpid(-1, nullptr, 0) < 0 && errno == ECHILD) return;
  }
}

std::string status_line(int status) {
  if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status));
  return "signal 9";
}

// A pipe (close-on-exec) and a fork; a failure of either is reported as spawn_failed and answers -1.
pid_t fork_with_pipe(int (&fds)[2]) {
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    report(std::string("spawn_failed pipe: ") + std::strerror(errno));
    return -1;
  }
  const pid_t child = ::fork();
  if (child < 0) report(std::string("spawn_failed fork: ") + std::strerror(errno));
  return child;
}

// Runs the program and reports its end; the signals in `waited` are blocked. `namespace_init`: this process is
// pid 1 of the execution's PID namespace.
int run_program(char** program, const sigset_t& waited, bool namespace_init) {
  int exec_error[2];
  const pid_t child = fork_with_pipe(exec_error);
  if (child < 0) return 1;
  if (child == 0) {
    ::setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    std::signal(SIGPIPE, SIG_DFL);  // the server ignores SIGPIPE; a program expects the default
    ::umask(022);                   // the server's own 077 is for its store, not for the project's files
    ::close(kStatusFd);
    ::execvp(program[0], program);
    const int err = errno;
    [[maybe_unused]] const ssize_t n = ::write(exec_error[1], &err, sizeof err);
    _exit(127);
  }
  ::setpgid(child, child);
  ::close(exec_error[1]);
  int err = 0;
  const ssize_t got = ::read(exec_error[0], &err, sizeof err);
  ::close(exec_error[0]);
  if (got == static_cast<ssize_t>(sizeof err)) {
    kill_tree(child, namespace_init);
    report(std::string("spawn_failed cannot run ") + program[0] + ": " + std::strerror(err));
    return 1;
  }
  // Without a namespace the server must be able to end the tree even when this keeper is killed or stopped
  // from inside it (kill -9 $PPID): it kills this group then.
  if (!namespace_init) report("group " + std::to_string(child));

  for (;;) {
    siginfo_t info{};
    if (::sigwaitinfo(&waited, &info) < 0) continue;
    if (info.si_signo == SIGCHLD) {
      int status = 0;
      bool done = false;
      pid_t r = 0;
      while ((r = ::waitpid(-1, &status, WNOHANG)) > 0) {
        if (r == child) {
          done = true;
          break;
        }
      }
      if (!done) continue;
      kill_tree(child, namespace_init);  // what the program left running does not outlive it
      report(status_line(status));
      return 0;
    }
    // SIGTERM: the call timed out, or the server died (the parent-death signal).
    kill_tree(child, namespace_init);
    report("signal 9");
    return 0;
  }
}

// The keeper proper, started as a program or forked by a launcher: `parent` is the process whose death it watches.
int keep(char** program, pid_t parent) {
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (::getppid() != parent) return 1;  // the parent died before the line above
  ::fcntl(kStatusFd, F_SETFD, FD_CLOEXEC);
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  sigset_t waited;
  sigemptyset(&waited);
  for (const int s : {SIGTERM, SIGINT, SIGHUP, SIGCHLD}) sigaddset(&waited, s);
  ::sigprocmask(SIG_BLOCK, &waited, nullptr);

  switch (enter_pid_namespace()) {
    case Isolation::pid_namespace: break;
    case Isolation::none: return run_program(program, waited, false);
    case Isolation::failed: return 1;
  }

  // The namespace's first process runs the program. The keeper stays outside, where the program cannot reach it,
  // and holds the pipe whose end tells that process the keeper is gone (before its parent-death signal was set).
  int alive[2];
  const pid_t init = fork_with_pipe(alive);
  if (init < 0) return 1;
  if (init == 0) {
    ::close(alive[1]);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // the keeper killed: the namespace and everything in it go too
    ::fcntl(alive[0], F_SETFL, O_NONBLOCK);
    char c = 0;
    if (::read(alive[0], &c, 1) == 0) _exit(1);  // the keeper died before the line above
    ::close(alive[0]);
    // /proc of this namespace, so that /proc/self, $$ and ps agree inside (sandboxes such as bubblewrap, which
    // Codex runs its commands in, open /proc/<own pid>/ns). Mounts made here stay in this mount namespace.
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        ::mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0) {
      report(std::string("warning cannot mount /proc for the execution's PID namespace (") + std::strerror(errno) +
             "): it sees the host's /proc");
    }
    run_program(program, waited, true);  // it reports every end, a failed start included
    _exit(0);
  }
  ::close(alive[0]);
  for (;;) {
    siginfo_t info{};
    if (::sigwaitinfo(&waited, &info) < 0) continue;
    if (info.si_signo != SIGCHLD) {
      ::kill(init, SIGKILL);  // the kernel kills the whole namespace with it
      int status = 0;
      while (::waitpid(init, &status, 0) < 0 && errno == EINTR) {
      }
      report("signal 9");
      _exit(0);
    }
    int status = 0;
    const pid_t r = ::waitpid(init, &status, WNOHANG);
    if (r != init) continue;
    // The namespace's first process reported the program's end and exited 0; anything else ended it before.
    if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) report("signal 9");
    // _exit: nothing runs at exit. A process of this keeper's children's PID namespace cannot be created once that
    // namespace is gone, and an exit handler that forks (LeakSanitizer's, in the sanitizer build) would fail on
    // the call's stderr.
    _exit(0);
  }
}

}  // namespace

int keeper_main(int argc, char** argv) {
  // argv: agentworks-keeper --parent PID -- PROGRAM ARGS...
  if (argc < 5 || std::strcmp(argv[1], "--parent") != 0 || std::strcmp(argv[3], "--") != 0 ||
      ::fcntl(kStatusFd, F_GETFD) < 0) {
    std::fprintf(stderr, "agentworks-keeper is started by agentworks-server (or a bridge serving a Crew) for one function call\n");
    return 2;
  }
  return keep(argv + 4, static_cast<pid_t>(std::atol(argv[2])));
}

namespace {

// What one launch request carries besides its descriptors, read from the request's memfd: the working directory,
// the program and its arguments, and the environment (launcher.hpp documents the layout).
struct LaunchRequest {
  std::string text;
  std::string cwd;
  std::vector<char*> program;  // null-terminated
  std::vector<char*> env;      // null-terminated
};

bool read_request(int memfd, LaunchRequest* request) {
  char buf[65536];
  off_t at = 0;
  for (;;) {
    const ssize_t n = ::pread(memfd, buf, sizeof buf, at);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) break;
    request->text.append(buf, static_cast<std::size_t>(n));
    at += n;
  }
  // cwd NUL, argument count NUL, the arguments each NUL-terminated, then the environment entries.
  std::vector<char*> fields;
  char* p = request->text.data();
  char* const end = p + request->text.size();
  while (p < end) {
    char* nul = static_cast<char*>(std::memchr(p, '\0', static_cast<std::size_t>(end - p)));
    if (nul == nullptr) return false;
    fields.push_back(p);
    p = nul + 1;
  }
  if (fields.size() < 3) return false;
  request->cwd = fields[0];
  const unsigned long count = std::strtoul(fields[1], nullptr, 10);
  if (count == 0 || count > fields.size() - 2) return false;
  request->program.assign(fields.begin() + 2, fields.begin() + 2 + static_cast<long>(count));
  request->program.push_back(nullptr);
  request->env.assign(fields.begin() + 2 + static_cast<long>(count), fields.end());
  request->env.push_back(nullptr);
  return true;
}

void send_reply(int sock, const std::string& text, int pidfd) {
  iovec iov{const_cast<char*>(text.data()), text.size()};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
  if (pidfd >= 0) {
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &pidfd, sizeof(int));
  }
  while (::sendmsg(sock, &msg, MSG_NOSIGNAL) < 0 && errno == EINTR) {
  }
}

// The forked keeper: the state posix_spawn gave it before (its own process group, no blocked signal, the
// default dispositions, the four descriptors and nothing else, the Crew folder as its directory), then the keeper.
[[noreturn]] void become_keeper(const int (&fds)[5], const LaunchRequest& request) {
  ::setpgid(0, 0);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  std::signal(SIGCHLD, SIG_DFL);
  std::signal(SIGPIPE, SIG_DFL);
  int high[4];
  for (int i = 0; i < 4; ++i) high[i] = ::fcntl(fds[i], F_DUPFD, 16);
  for (int i = 0; i < 4; ++i) ::dup2(high[i], i);
  ::syscall(SYS_close_range, 4U, ~0U, 0U);
  if (::chdir(request.cwd.c_str()) != 0) {
    report(std::string("spawn_failed cannot enter the Crew folder ") + request.cwd + ": " + std::strerror(errno));
    _exit(126);
  }
  environ = const_cast<char**>(request.env.data());
  _exit(keep(const_cast<char**>(request.program.data()), ::getppid()));
}

// One request: five descriptors (stdin, stdout, stderr, status, the request's memfd); the reply is "pid N" with
// the keeper's pidfd, or "error TEXT".
void serve_request(int sock, int sigfd) {
  char byte = 0;
  iovec iov{&byte, 1};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(5 * sizeof(int))];
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  const ssize_t n = ::recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
  if (n < 0 && errno == EINTR) return;
  if (n <= 0) _exit(0);  // the host closed its end (or is gone): nothing more to launch
  int fds[5] = {-1, -1, -1, -1, -1};
  int received = 0;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    const std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (std::size_t i = 0; i < count; ++i) {
      int fd = -1;
      std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
      if (received < 5) {
        fds[received++] = fd;
      } else {
        ::close(fd);
      }
    }
  }
  const auto close_all = [&] {
    for (const int fd : fds)
      if (fd >= 0) ::close(fd);
  };
  LaunchRequest request;
  if (received != 5 || (msg.msg_flags & MSG_CTRUNC) != 0 || !read_request(fds[4], &request)) {
    close_all();
    send_reply(sock, "error a launch request needs five descriptors and a well-formed request", -1);
    return;
  }
  const pid_t child = ::fork();
  if (child < 0) {
    const std::string why = std::strerror(errno);
    close_all();
    send_reply(sock, "error fork: " + why, -1);
    return;
  }
  if (child == 0) {
    ::close(sock);
    ::close(sigfd);
    become_keeper(fds, request);
  }
  close_all();
  // Not reaped before this: a child that already exited is a zombie, still its own pid.
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, child, 0));
  if (pidfd < 0) {
    const std::string why = std::strerror(errno);
    ::kill(child, SIGKILL);
    send_reply(sock, "error pidfd_open: " + why, -1);
    return;
  }
  send_reply(sock, "pid " + std::to_string(child), pidfd);
  ::close(pidfd);
}

}  // namespace

int launcher_main(int argc, char** argv) {
  // argv: agentworks-keeper --launcher --parent PID; fd 3 is the host's end of a SOCK_SEQPACKET socket.
  if (argc != 4 || std::strcmp(argv[1], "--launcher") != 0 || std::strcmp(argv[2], "--parent") != 0 ||
      ::fcntl(kStatusFd, F_GETFD) < 0) {
    std::fprintf(stderr, "agentworks-keeper --launcher is started by its host to fork keepers\n");
    return 2;
  }
  // The host gone, the launcher goes at once, and each keeper it forked gets its SIGTERM and ends its tree.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != static_cast<pid_t>(std::atol(argv[3]))) return 1;
  const int sock = ::fcntl(kStatusFd, F_DUPFD_CLOEXEC, 16);
  ::close(kStatusFd);
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  ::sigprocmask(SIG_BLOCK, &chld, nullptr);
  const int sigfd = ::signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
  if (sock < 0 || sigfd < 0) return 1;
  for (;;) {
    pollfd fds[2] = {{sock, POLLIN, 0}, {sigfd, POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) continue;
    if ((fds[1].revents & POLLIN) != 0) {
      signalfd_siginfo info{};
      while (::read(sigfd, &info, sizeof info) > 0) {
      }
      while (::waitpid(-1, nullptr, WNOHANG) > 0) {  // the keepers' ends are reported on their own status pipes
      }
    }
    if ((fds[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0) serve_request(sock, sigfd);
  }
}

}  // namespace agentworks::functions::keeper
