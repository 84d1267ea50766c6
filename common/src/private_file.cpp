#include "agentworks/private_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "agentworks/error.hpp"
#include "agentworks/random.hpp"

namespace agentworks {
namespace fs = std::filesystem;
namespace {

[[noreturn]] void fail(const fs::path& path, std::string_view what, int err) {
  throw Error(ErrorCode::internal,
              "cannot " + std::string(what) + " " + path.string() + ": " + std::strerror(err));
}

// Creates missing directories one level at a time so each new one gets 0700 regardless of umask.
void make_private_parents_impl(const fs::path& dir) {
  if (dir.empty()) return;
  std::vector<fs::path> missing;
  for (fs::path p = dir; !p.empty(); p = p.parent_path()) {
    std::error_code ec;
    if (fs::exists(p, ec)) break;
    missing.push_back(p);
    if (p == p.parent_path()) break;
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (::mkdir(it->c_str(), 0700) != 0 && errno != EEXIST) fail(*it, "create directory", errno);
    if (::chmod(it->c_str(), 0700) != 0) fail(*it, "set permissions of", errno);
  }
}

void write_all(int fd, std::string_view data, const fs::path& path) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(path, "write", errno);
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

}  // namespace

void write_private_file(const fs::path& path, std::string_view content) {
  const fs::path dir = path.parent_path();
  make_private_parents_impl(dir);
  const fs::path tmp = path.string() + ".tmp-" + random_hex(6);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) fail(tmp, "create", errno);
  try {
    if (::fchmod(fd, 0600) != 0) fail(tmp, "set permissions of", errno);
    write_all(fd, content, tmp);
    if (::fsync(fd) != 0) fail(tmp, "sync", errno);
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    fail(path, "replace", err);
  }
  // Make the rename itself durable.
  int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

void make_private_dirs(const fs::path& dir) { make_private_parents_impl(dir); }

std::optional<std::string> read_file_if_exists(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::error_code ec;
    if (!fs::exists(path, ec)) return std::nullopt;
    fail(path, "read", errno != 0 ? errno : EACCES);
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) fail(path, "read", errno != 0 ? errno : EIO);
  return ss.str();
}

}  // namespace agentworks
