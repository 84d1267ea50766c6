#include "private_dir.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <system_error>

namespace agentworks::bridge {
namespace fs = std::filesystem;
namespace {

std::string errno_text(int err) { return std::strerror(err); }

void make_dirs(const fs::path& path) {
  // Parents first (0700), then the directory itself; an existing entry is checked after opening.
  fs::path partial;
  for (const auto& part : path) {
    partial /= part;
    if (partial == partial.root_path()) continue;
    if (::mkdir(partial.c_str(), 0700) != 0 && errno != EEXIST) {
      throw StartupError("cannot create directory " + partial.string() + ": " + errno_text(errno));
    }
  }
}

UniqueFd open_checked(const fs::path& path, bool tighten) {
  if (path.empty() || !path.is_absolute()) {
    throw StartupError("private directory must be an absolute path, got '" + path.string() + "'");
  }
  make_dirs(path);
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) {
    const int err = errno;
    if (err == ELOOP || err == ENOTDIR) {
      throw StartupError("refusing to start: " + path.string() +
                         " is a symlink or not a directory; remove it so the bridge can create a private "
                         "directory there");
    }
    throw StartupError("cannot open directory " + path.string() + ": " + errno_text(err));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) {
    throw StartupError("cannot stat directory " + path.string() + ": " + errno_text(errno));
  }
  if (!S_ISDIR(st.st_mode)) {
    throw StartupError("refusing to start: " + path.string() + " is not a directory");
  }
  if (st.st_uid != ::getuid()) {
    throw StartupError("refusing to start: " + path.string() + " is owned by uid " + std::to_string(st.st_uid) +
                       ", not by you (uid " + std::to_string(::getuid()) +
                       "); another user may be interfering; remove it or set XDG_RUNTIME_DIR to a private "
                       "directory");
  }
  const auto mode = st.st_mode & 07777;
  if (mode != 0700) {
    if (tighten && ::fchmod(fd.get(), 0700) == 0) return fd;
    char octal[8];
    std::snprintf(octal, sizeof octal, "%04o", static_cast<unsigned>(mode));
    throw StartupError("refusing to start: " + path.string() + " has mode " + octal +
                       "; it must be 0700 (run: chmod 700 " + path.string() + ")");
  }
  return fd;
}

}  // namespace

UniqueFd open_private_dir(const fs::path& path) { return open_checked(path, false); }
UniqueFd open_owned_dir_tightening(const fs::path& path) { return open_checked(path, true); }

}  // namespace agentworks::bridge
