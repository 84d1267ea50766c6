#include "keeper/keeper.hpp"

#include <dirent.h>
#include <fcntl.h>
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

namespace agentworks::server::keeper {
namespace {

constexpr int kStatusFd = 3;

void report(const std::string& line) {
  const std::string text = line + "\n";
  [[maybe_unused]] const ssize_t n = ::write(kStatusFd, text.data(), text.size());
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

// Kills the program's group and every other descendant, and reaps them all. When the program left nothing
// behind (the usual case) there is no child left to wait for and /proc is never read.
void kill_tree(pid_t group) {
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

}  // namespace

int keeper_main(int argc, char** argv) {
  // argv: agentworks-keeper --parent PID -- PROGRAM ARGS...
  if (argc < 5 || std::strcmp(argv[1], "--parent") != 0 || std::strcmp(argv[3], "--") != 0 ||
      ::fcntl(kStatusFd, F_GETFD) < 0) {
    std::fprintf(stderr, "agentworks-keeper is started by agentworks-server for one function call\n");
    return 2;
  }
  const int first = 4;
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (::getppid() != static_cast<pid_t>(std::atol(argv[2]))) return 1;  // the server died before the line above
  ::fcntl(kStatusFd, F_SETFD, FD_CLOEXEC);
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  sigset_t waited;
  sigemptyset(&waited);
  for (const int s : {SIGTERM, SIGINT, SIGHUP, SIGCHLD}) sigaddset(&waited, s);
  ::sigprocmask(SIG_BLOCK, &waited, nullptr);

  int exec_error[2];
  if (::pipe2(exec_error, O_CLOEXEC) != 0) {
    report(std::string("spawn_failed pipe: ") + std::strerror(errno));
    return 1;
  }
  const pid_t child = ::fork();
  if (child < 0) {
    report(std::string("spawn_failed fork: ") + std::strerror(errno));
    return 1;
  }
  if (child == 0) {
    ::setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    std::signal(SIGPIPE, SIG_DFL);  // the server ignores SIGPIPE; a program expects the default
    ::umask(022);                   // the server's own 077 is for its store, not for the project's files
    ::close(kStatusFd);
    ::execvp(argv[first], argv + first);
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
    kill_tree(child);
    report(std::string("spawn_failed cannot run ") + argv[first] + ": " + std::strerror(err));
    return 1;
  }

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
      kill_tree(child);  // what the program left running does not outlive it
      report(status_line(status));
      return 0;
    }
    // SIGTERM: the call timed out, or the server died (the parent-death signal).
    kill_tree(child);
    report("signal 9");
    return 0;
  }
}

}  // namespace agentworks::server::keeper
