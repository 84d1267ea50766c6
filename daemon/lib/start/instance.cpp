#include "start/instance.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "agentworks/private_socket.hpp"
#include "start/private_dir.hpp"

namespace agentworks::bridge {
namespace fs = std::filesystem;
namespace {

// The socket is named through the opened private directory's fd: short whatever the home's path length, and
// immune to a rename of the directory after it was checked.
sockaddr_un make_address(int dir_fd, const fs::path& dir) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string s = private_socket::path_through_fd(dir_fd, dir, kSocketName);
  if (s.size() >= sizeof addr.sun_path) {
    throw StartupError("socket path " + s + " is too long for a Unix socket (" + std::to_string(s.size()) +
                       " bytes); mount /proc, or use a shorter HOME");
  }
  std::memcpy(addr.sun_path, s.c_str(), s.size() + 1);
  return addr;
}

std::string read_pid(int fd) {
  char buf[32] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  std::string s = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s.empty() ? "unknown pid" : "pid " + s;
}

UniqueFd listen_on(int dir_fd, const fs::path& path) {
  const sockaddr_un addr = make_address(dir_fd, path.parent_path());
  // Only the lock holder gets here, so whatever is at the path is a stale socket of a dead bridge.
  if (::unlinkat(dir_fd, kSocketName, 0) != 0 && errno != ENOENT) {
    throw StartupError("cannot remove stale socket " + path.string() + ": " + std::strerror(errno));
  }
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) throw StartupError(std::string("cannot create socket: ") + std::strerror(errno));
  const mode_t old = ::umask(0177);  // the socket file is born 0600
  const int rc = ::bind(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
  const int bind_err = errno;
  ::umask(old);
  if (rc != 0) throw StartupError("cannot bind " + path.string() + ": " + std::strerror(bind_err));
  if (::fchmodat(dir_fd, kSocketName, 0600, 0) != 0) {
    throw StartupError("cannot set socket permissions: " + std::string(std::strerror(errno)));
  }
  if (::listen(fd.get(), 64) != 0) throw StartupError(std::string("cannot listen: ") + std::strerror(errno));
  return fd;
}

}  // namespace

bool socket_answers(int dir_fd, const fs::path& dir) {
  sockaddr_un addr{};
  try {
    addr = make_address(dir_fd, dir);
  } catch (const StartupError&) {
    return false;
  }
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return false;
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) return false;
  // Something answers: it must be a bridge of this user, not a process another user slipped in.
  if (auto why = private_socket::foreign_peer_reason(fd.get(), dir / kSocketName)) {
    throw StartupError("refusing to start: " + *why);
  }
  return true;
}

ClaimResult claim_instance(int dir_fd, const fs::path& dir) {
  const fs::path socket_path = dir / kSocketName;
  ClaimResult result;
  if (socket_answers(dir_fd, dir)) {
    result.already_running = "a bridge already answers on " + socket_path.string();
    return result;
  }
  UniqueFd lock(::openat(dir_fd, kLockName, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!lock.valid()) {
    throw StartupError("cannot open lock file " + (dir / kLockName).string() + ": " + std::strerror(errno));
  }
  // Another starter may hold the lock while it sets up; wait (bounded) for it to answer or to give up.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (::flock(lock.get(), LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      throw StartupError("cannot lock " + (dir / kLockName).string() + ": " + std::strerror(errno));
    }
    if (socket_answers(dir_fd, dir)) {
      result.already_running = "a bridge is already running (" + read_pid(lock.get()) + ")";
      return result;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      throw StartupError("another bridge (" + read_pid(lock.get()) + ") holds " + (dir / kLockName).string() +
                         " but does not answer on its socket; stop it and start again");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  Instance inst;
  inst.listener = listen_on(dir_fd, socket_path);
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(lock.get(), 0) != 0 || ::pwrite(lock.get(), pid.data(), pid.size(), 0) < 0) {
    throw StartupError("cannot write pid to lock file: " + std::string(std::strerror(errno)));
  }
  inst.lock = std::move(lock);
  inst.socket_path = socket_path;
  result.instance = std::move(inst);
  return result;
}

void release_instance(Instance& instance, int dir_fd) {
  instance.listener.reset();
  if (instance.lock.valid()) {
    ::unlinkat(dir_fd, kSocketName, 0);
    instance.lock.reset();
  }
}

}  // namespace agentworks::bridge
