/* agentworks-bench-contract-helper: the contract floor's process (contract_floor.hpp). Static and single-threaded
 * like the keeper launcher the server forks keepers from, so a fork here costs what a fork there costs. Started as
 *   agentworks-bench-contract-helper SOCKET_FD PAYLOAD PROGRAM ARGS...
 * with the program's environment as its own. Each byte read from the socket starts one run, PAYLOAD on the
 * program's stdin and its stdout read to EOF; the byte written back is the exit code. 'i' runs the program in the
 * keeper's shape (a holder outside a new PID and mount namespace, the namespace's first process with a /proc of its
 * own, the program its child); 'p' forks and execs it plainly, the floor from the same small process. EOF on the
 * socket ends the helper. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

static char uid_map[64];
static char gid_map[64];

static int write_file(const char* path, const char* text) {
  const int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  const size_t n = strlen(text);
  const int ok = write(fd, text, n) == (ssize_t)n;
  close(fd);
  return ok;
}

/* As the keeper does: a PID and mount namespace, through a user namespace of the same ids when not root. */
static int enter_namespaces(void) {
  if (unshare(CLONE_NEWPID | CLONE_NEWNS) == 0) return 1;
  return unshare(CLONE_NEWUSER) == 0 && write_file("/proc/self/setgroups", "deny") &&
         write_file("/proc/self/uid_map", uid_map) && write_file("/proc/self/gid_map", gid_map) &&
         unshare(CLONE_NEWPID | CLONE_NEWNS) == 0;
}

static int wait_exit(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return 126;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int run_program(char** program, const char* payload, int isolated) {
  int in_pipe[2];
  int out_pipe[2];
  if (pipe2(in_pipe, O_CLOEXEC) != 0 || pipe2(out_pipe, O_CLOEXEC) != 0) return 125;
  const pid_t holder = fork();
  if (holder < 0) return 125;
  if (holder == 0) {
    dup2(in_pipe[0], STDIN_FILENO);
    dup2(out_pipe[1], STDOUT_FILENO);
    close_range(3, ~0U, 0);
    if (!isolated) {
      execv(program[0], program);
      _exit(127);
    }
    if (!enter_namespaces()) _exit(125);
    const pid_t init = fork();
    if (init < 0) _exit(125);
    if (init == 0) {
      if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
          mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0) {
        _exit(125);
      }
      const pid_t child = fork();
      if (child < 0) _exit(125);
      if (child == 0) {
        execv(program[0], program);
        _exit(127);
      }
      close(STDIN_FILENO);
      close(STDOUT_FILENO);
      _exit(wait_exit(child));
    }
    close(STDIN_FILENO);
    close(STDOUT_FILENO);
    _exit(wait_exit(init));
  }
  close(in_pipe[0]);
  close(out_pipe[1]);
  const size_t n = strlen(payload);
  if (write(in_pipe[1], payload, n) != (ssize_t)n) { /* the program may not read it all */
  }
  close(in_pipe[1]);
  char buf[4096];
  for (;;) {
    const ssize_t got = read(out_pipe[0], buf, sizeof buf);
    if (got == 0 || (got < 0 && errno != EINTR)) break;
  }
  close(out_pipe[0]);
  return wait_exit(holder);
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "agentworks-bench-contract-helper is started by agentworks-bench-functions\n");
    return 2;
  }
  const int sock = atoi(argv[1]);
  snprintf(uid_map, sizeof uid_map, "%u %u 1", (unsigned)geteuid(), (unsigned)geteuid());
  snprintf(gid_map, sizeof gid_map, "%u %u 1", (unsigned)getegid(), (unsigned)getegid());
  for (;;) {
    char c = 0;
    const ssize_t n = read(sock, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0;
    if (c != 'i' && c != 'p') return 1;
    const char code = (char)run_program(argv + 3, argv[2], c == 'i');
    if (write(sock, &code, 1) != 1) return 1;
  }
}
