#include "keeper/keeper.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

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

}  // namespace

int keeper_main(int argc, char** argv) {
  // argv: agentworks-keeper --parent PID -- PROGRAM ARGS...
  if (argc < 5 || std::strcmp(argv[1], "--parent") != 0 || std::strcmp(argv[3], "--") != 0 ||
      ::fcntl(kStatusFd, F_GETFD) < 0) {
    std::fprintf(stderr, "agentworks-keeper is started by agentworks-server (or a bridge serving a Crew) for one function call\n");
    return 2;
  }
  char** program = argv + 4;
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (::getppid() != static_cast<pid_t>(std::atol(argv[2]))) return 1;  // the server died before the line above
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

}  // namespace agentworks::functions::keeper
