#include "platform/login_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <nlohmann/json.hpp>
#include <string>

#include "agentworks/paths.hpp"

namespace agentworks::bridge {

namespace {

// A login file is a few hundred bytes; anything past this is not one.
constexpr std::size_t kMaxLoginBytes = 1 << 20;

struct FileIdentity {
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = -1;
  timespec mtime{};
  bool operator==(const FileIdentity& o) const {
    return dev == o.dev && ino == o.ino && size == o.size && mtime.tv_sec == o.mtime.tv_sec &&
           mtime.tv_nsec == o.mtime.tv_nsec;
  }
};

FileIdentity identity_of(const struct stat& st) { return {st.st_dev, st.st_ino, st.st_size, st.st_mtim}; }

// Reads and parses the file at `path`; `seen` is the identity of what was read.
LoginView read_login(const std::string& path, FileIdentity* seen) {
  LoginView view;
  view.unreadable = true;
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) view.unreadable = false;
    return view;
  }
  struct stat st {};
  std::string text;
  bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<std::size_t>(st.st_size) <= kMaxLoginBytes;
  if (ok) *seen = identity_of(st);
  char buf[4096];
  while (ok) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 || text.size() + static_cast<std::size_t>(n) > kMaxLoginBytes) ok = false;
    if (n <= 0) break;
    text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  if (!ok) return view;
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) return view;
  try {
    view.login = config_from_json(j);
    view.unreadable = false;
  } catch (const std::exception&) {
  }
  return view;
}

}  // namespace

const LoginView& current_login() {
  static LoginView cached;
  static FileIdentity cached_identity;
  static bool have = false;
  const std::string path = paths::config_file().string();
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    cached = LoginView{};
    cached.unreadable = errno != ENOENT;
    have = false;
    return cached;
  }
  if (!S_ISREG(st.st_mode)) {
    cached = LoginView{std::nullopt, true};
    have = false;
    return cached;
  }
  if (have && identity_of(st) == cached_identity) return cached;
  FileIdentity seen;
  cached = read_login(path, &seen);
  have = seen.size >= 0;
  cached_identity = seen;
  return cached;
}

}  // namespace agentworks::bridge
