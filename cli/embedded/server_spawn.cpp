#include "embedded/server_spawn.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "agentworks/environment.hpp"
#include "agentworks/error.hpp"
#include "agentworks/server_client.hpp"
#include "embedded/binary_lookup.hpp"

namespace agentworks::cli {
namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

namespace {

// Reads one line from `fd` within the deadline. Returns false on EOF or timeout.
bool read_first_line(int fd, clock_type::time_point deadline, std::string& line) {
  char c = 0;
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock_type::now()).count();
    if (left <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    int r = ::poll(&p, 1, static_cast<int>(left));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    ssize_t n = ::read(fd, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    if (c == '\n') return true;
    line.push_back(c);
    if (line.size() > 4096) return false;
  }
}

}  // namespace

fs::path find_server_binary() { return find_program("agentworks-server", "server", env::Var::server_bin, "AGENTWORKS_SERVER_BIN"); }

std::string tail_of(const fs::path& file, int lines) {
  std::ifstream in(file);
  std::deque<std::string> last;
  for (std::string line; std::getline(in, line);) {
    last.push_back(line);
    if (last.size() > static_cast<std::size_t>(lines)) last.pop_front();
  }
  std::string out;
  for (const auto& l : last) out += (out.empty() ? "" : " | ") + l;
  return out;
}

SpawnedServer spawn_server(const fs::path& binary, const fs::path& data, int port, const fs::path& log,
                           std::chrono::milliseconds timeout) {
  // Everything the child needs is prepared before fork: after fork only async-signal-safe calls.
  const std::string bin = binary.string();
  const std::string listen = "127.0.0.1:" + std::to_string(port);
  const std::string data_dir = data.string();
  std::vector<const char*> argv = {bin.c_str(), "--listen", listen.c_str(), "--data", data_dir.c_str(), nullptr};

  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) throw Error(ErrorCode::internal, std::string("pipe: ") + std::strerror(errno));
  int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (log_fd >= 0) ::fchmod(log_fd, 0600);  // an existing log loosened by hand is private again
  int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (log_fd < 0 || null_fd < 0) {
    int err = errno;
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    if (log_fd >= 0) ::close(log_fd);
    if (null_fd >= 0) ::close(null_fd);
    throw Error(ErrorCode::internal, "cannot open " + log.string() + ": " + std::strerror(err));
  }

  pid_t pid = ::fork();
  if (pid < 0) {
    int err = errno;
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    ::close(log_fd);
    ::close(null_fd);
    throw Error(ErrorCode::internal, std::string("fork: ") + std::strerror(err));
  }
  if (pid == 0) {
    ::setsid();
    // Ignored signals stay ignored across exec: once we exit, a later write to the pipe fails with EPIPE
    // instead of killing the server.
    ::signal(SIGPIPE, SIG_IGN);
    ::dup2(null_fd, STDIN_FILENO);
    ::dup2(pipe_fds[1], STDOUT_FILENO);
    ::dup2(log_fd, STDERR_FILENO);
    ::close_range(3, ~0U, 0);  // no inherited descriptors (e.g. a test harness's pipes) stay open
    ::execv(argv[0], const_cast<char* const*>(argv.data()));
    const char msg[] = "agentworks up: cannot execute agentworks-server\n";
    [[maybe_unused]] auto n = ::write(STDERR_FILENO, msg, sizeof msg - 1);
    ::_exit(127);
  }
  ::close(pipe_fds[1]);
  ::close(null_fd);

  std::string line;
  bool got = read_first_line(pipe_fds[0], clock_type::now() + timeout, line);
  ::close(pipe_fds[0]);
  if (got) {
    std::string copy = line + "\n";
    [[maybe_unused]] auto n = ::write(log_fd, copy.data(), copy.size());
  }
  ::close(log_fd);

  const std::string prefix = "listening on ";
  if (!got || line.rfind(prefix, 0) != 0) {
    int status = 0;
    bool exited = ::waitpid(pid, &status, WNOHANG) == pid;
    if (!exited) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
    }
    std::string why = tail_of(log, 3);
    throw Error(ErrorCode::internal, std::string("the embedded server ") + (exited ? "exited" : "did not start") +
                                         (why.empty() ? "" : ": " + why) + " (log: " + log.string() + ")");
  }
  return SpawnedServer{pid, line.substr(prefix.size())};
}

bool wait_healthy(const std::string& url, std::chrono::milliseconds timeout) {
  ServerClient client(url, {}, ServerClientOptions{1000, 2000, {}});
  auto deadline = clock_type::now() + timeout;
  while (true) {
    try {
      nlohmann::json health = client.get("/v1/health");
      if (health.value("ok", false)) return true;
    } catch (const Error&) {
      // not up yet
    }
    if (clock_type::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace agentworks::cli
