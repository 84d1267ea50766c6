#include "start/private_dir.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "agentworks/private_socket.hpp"

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
  const bool ours_but_loose = S_ISDIR(st.st_mode) && st.st_uid == ::getuid() && (st.st_mode & 07777) != 0700;
  if (ours_but_loose && tighten && ::fchmod(fd.get(), 0700) == 0) return fd;
  if (auto why = private_socket::unsafe_dir_reason(st, path)) throw StartupError("refusing to start: " + *why);
  return fd;
}

}  // namespace

UniqueFd open_private_dir(const fs::path& path) { return open_checked(path, false); }
UniqueFd open_owned_dir_tightening(const fs::path& path) { return open_checked(path, true); }

}  // namespace agentworks::bridge
