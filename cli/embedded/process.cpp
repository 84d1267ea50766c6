#include "embedded/process.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

#include "agentworks/error.hpp"
#include "agentworks/private_file.hpp"

namespace agentworks::cli {
namespace fs = std::filesystem;

bool process_alive(pid_t pid) {
  if (pid <= 0) return false;
  // Reap it if it happens to be our own child (up started it and it died at once).
  int status = 0;
  if (::waitpid(pid, &status, WNOHANG) == pid) return false;
  if (::kill(pid, 0) != 0 && errno == ESRCH) return false;
  // A zombie (dead, not yet reaped by its parent) no longer serves.
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (std::getline(stat, line)) {
    auto close = line.rfind(')');
    if (close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z') return false;
  }
  return true;
}

bool is_agentworks_server(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  std::string argv0;
  if (!std::getline(in, argv0, '\0')) return false;
  return fs::path(argv0).filename() == "agentworks-server";
}

bool stop_process(pid_t pid, std::chrono::milliseconds grace) {
  using clock = std::chrono::steady_clock;
  ::kill(pid, SIGTERM);
  auto deadline = clock::now() + grace;
  while (clock::now() < deadline) {
    if (!process_alive(pid)) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(pid, SIGKILL);
  deadline = clock::now() + std::chrono::seconds(5);
  while (clock::now() < deadline && process_alive(pid)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

bool loopback_port_free(int port) {
  if (port == 0) return true;
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return true;  // cannot tell; let the server report it
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);  // as servers do: TIME_WAIT is not "taken"
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool free = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return free;
}

int free_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
    port = ntohs(addr.sin_port);
  ::close(fd);
  return port;
}

FileLock::FileLock(const fs::path& path) {
  make_private_dirs(path.parent_path());
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd_ < 0) throw Error(ErrorCode::internal, "cannot open lock file " + path.string() + ": " + std::strerror(errno));
  while (::flock(fd_, LOCK_EX) != 0) {
    if (errno != EINTR) {
      int err = errno;
      ::close(fd_);
      throw Error(ErrorCode::internal, "cannot lock " + path.string() + ": " + std::strerror(err));
    }
  }
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace agentworks::cli
