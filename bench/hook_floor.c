/* agentworks-bench-hook-floor SOCKET: the floor for the hook latency benchmark (docs/benchmarks.md "Hook").
 * The least a hook process can do for an unattached chat: connect to the bridge socket, read the greeting line,
 * send one `lookup` line, read the answer line, exit. No JSON parsing, no C++ runtime. Exit 0 when an answer
 * line arrived, 1 otherwise. */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* Reads until `want` newlines have arrived in total (greeting + answer). */
static int read_lines(int fd, int want) {
  char buf[4096];
  int seen = 0;
  while (seen < want) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) return -1;
    for (ssize_t i = 0; i < n; ++i) seen += buf[i] == '\n';
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fputs("usage: agentworks-bench-hook-floor SOCKET\n", stderr);
    return 2;
  }
  struct sockaddr_un addr;
  memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  if (strlen(argv[1]) >= sizeof addr.sun_path) return 1;
  strcpy(addr.sun_path, argv[1]);
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || connect(fd, (const struct sockaddr*)&addr, sizeof addr) != 0) return 1;
  if (read_lines(fd, 1) != 0) return 1;
  static const char req[] = "{\"id\":1,\"op\":\"lookup\",\"provider\":\"claude\",\"session_id\":\"bench-floor\"}\n";
  if (write(fd, req, sizeof req - 1) != (ssize_t)(sizeof req - 1)) return 1;
  /* The greeting may have arrived together with nothing else; the answer is the next line. */
  if (read_lines(fd, 1) != 0) return 1;
  close(fd);
  return 0;
}
