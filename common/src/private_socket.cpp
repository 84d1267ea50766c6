#include "agentworks/private_socket.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "agentworks/error.hpp"

namespace agentworks::private_socket {
namespace fs = std::filesystem;
namespace {

std::string octal_mode(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

Error refuse(const fs::path& dir, const std::string& what, const std::string& fix) {
  return Error(ErrorCode::forbidden, "refusing to use the agentworks bridge socket in " + dir.string() + ": " +
                                         what + "; nothing was sent. " + fix);
}

}  // namespace

std::optional<std::string> unsafe_dir_reason(const struct stat& st, const fs::path& dir) {
  const uid_t me = ::getuid();
  if (!S_ISDIR(st.st_mode)) return dir.string() + " is not a directory; remove it (rm " + dir.string() + ")";
  if (st.st_uid != me) {
    return dir.string() + " is owned by uid " + std::to_string(st.st_uid) + ", not by you (uid " +
           std::to_string(me) + "): another local user may be impersonating your bridge; remove it (as root if " +
           "needed: rm -rf " + dir.string() + ") and run `agentworks daemon start`";
  }
  if ((st.st_mode & 07777) != 0700) {
    return dir.string() + " has mode " + octal_mode(st.st_mode) + " but must be 0700, so that no other user " +
           "can reach the socket (run: chmod 700 " + dir.string() + ")";
  }
  return std::nullopt;
}

int open_checked_dir(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) return -1;
    if (err == ELOOP || err == ENOTDIR) {
      throw refuse(dir, "it is a symlink or not a directory",
                   "Remove it (rm " + dir.string() + ") and run `agentworks daemon start`.");
    }
    if (err == EACCES) {
      // A folder we may not open is someone else's: lstat needs no permission on the folder itself, so say whose.
      struct stat st {};
      if (::lstat(dir.c_str(), &st) == 0) {
        if (auto why = unsafe_dir_reason(st, dir))
          throw Error(ErrorCode::forbidden, "refusing to use the agentworks bridge socket: " + *why + "; nothing was sent");
      }
      throw refuse(dir, "you may not open it (" + std::string(std::strerror(err)) + ")",
                   "It must be your own folder with mode 0700 (ls -ld " + dir.string() + ").");
    }
    throw Error(ErrorCode::internal, "cannot open " + dir.string() + ": " + std::strerror(err));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    throw Error(ErrorCode::internal, "cannot stat " + dir.string() + ": " + std::strerror(err));
  }
  if (auto why = unsafe_dir_reason(st, dir)) {
    ::close(fd);
    throw Error(ErrorCode::forbidden, "refusing to use the agentworks bridge socket: " + *why + "; nothing was sent");
  }
  return fd;
}

std::string path_through_fd(int dir_fd, const fs::path& dir, const std::string& name) {
  const std::string via_fd = "/proc/self/fd/" + std::to_string(dir_fd);
  struct stat by_fd {};
  struct stat opened {};
  // The magic link must resolve to the very directory we checked (a /proc of another mount namespace would not).
  if (::stat(via_fd.c_str(), &by_fd) == 0 && ::fstat(dir_fd, &opened) == 0 && by_fd.st_dev == opened.st_dev &&
      by_fd.st_ino == opened.st_ino) {
    return via_fd + "/" + name;
  }
  return (dir / name).string();
}

std::optional<std::string> foreign_peer_reason(int fd, const fs::path& socket) {
  ucred cred{};
  socklen_t len = sizeof cred;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
    return "the peer credentials of " + socket.string() + " cannot be read (" + std::strerror(errno) + ")";
  }
  if (cred.uid == ::getuid()) return std::nullopt;
  return "the process listening on " + socket.string() + " (pid " + std::to_string(cred.pid) + ") runs as uid " +
         std::to_string(cred.uid) + ", not as you (uid " + std::to_string(::getuid()) +
         "): another local user may be impersonating your bridge; stop that process, remove the socket and run "
         "`agentworks daemon start`";
}

void check_peer_is_this_user(int fd, const fs::path& socket) {
  if (auto why = foreign_peer_reason(fd, socket)) {
    throw Error(ErrorCode::forbidden, "refusing to use the agentworks bridge socket: " + *why + "; nothing was sent");
  }
}

}  // namespace agentworks::private_socket
