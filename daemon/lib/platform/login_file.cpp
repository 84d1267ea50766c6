#include "platform/login_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "agentworks/error.hpp"
#include "agentworks/paths.hpp"
#include "platform/unique_fd.hpp"

namespace agentworks::bridge {

namespace {

constexpr off_t kMaxConfigBytes = 1 << 20;

std::optional<std::string> read_config_text(const std::filesystem::path& path, struct stat* opened) {
  const std::string fix = " (check its permissions)";
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (!fd.valid()) {
    if (errno == ENOENT) return std::nullopt;
    throw Error(ErrorCode::bad_request, "cannot read " + path.string() + ": " + std::strerror(errno) + fix);
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) {
    throw Error(ErrorCode::bad_request, "cannot read " + path.string() + ": " + std::strerror(errno) + fix);
  }
  if (opened != nullptr) *opened = st;
  if (!S_ISREG(st.st_mode)) {
    throw Error(ErrorCode::bad_request, "the config " + path.string() +
                                            " is not a regular file (a FIFO, device or directory); name the CLI "
                                            "config file itself (agentworks login writes it)");
  }
  const std::string too_large = "the config " + path.string() + " is over 1 MiB; it is not an agentworks CLI config";
  if (st.st_size > kMaxConfigBytes) throw Error(ErrorCode::bad_request, too_large);
  std::string text;
  char buf[8192];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(ErrorCode::bad_request, "cannot read " + path.string() + ": " + std::strerror(errno) + fix);
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > static_cast<std::size_t>(kMaxConfigBytes)) throw Error(ErrorCode::bad_request, too_large);
  }
  return text;
}

bool same_file_state(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino && a.st_size == b.st_size &&
         a.st_mtim.tv_sec == b.st_mtim.tv_sec && a.st_mtim.tv_nsec == b.st_mtim.tv_nsec;
}

}  // namespace

std::optional<Config> read_config_file(const std::filesystem::path& path, struct stat* opened) {
  const auto text = read_config_text(path, opened);
  if (!text) return std::nullopt;
  return parse_config_text(*text, path);
}

const LoginView& current_login() {
  static LoginView cached;
  static struct stat cached_state {};
  static bool have = false;
  const std::filesystem::path path = paths::config_file();
  struct stat now {};
  if (::stat(path.c_str(), &now) != 0) {
    cached = LoginView{std::nullopt, errno != ENOENT};
    have = false;
    return cached;
  }
  if (have && same_file_state(now, cached_state)) return cached;
  struct stat opened {};  // st_mode 0 (not a regular file) when it could not be opened
  try {
    cached = LoginView{read_config_file(path, &opened), false};
  } catch (const std::exception&) {
    cached = LoginView{std::nullopt, true};
  }
  // A file that could not be opened is looked at again next time; one that was read (well or not) only once changed.
  have = S_ISREG(opened.st_mode);
  cached_state = opened;
  return cached;
}

}  // namespace agentworks::bridge
