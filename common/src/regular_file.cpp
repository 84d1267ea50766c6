#include "agentworks/regular_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "agentworks/unique_fd.hpp"

namespace agentworks {

namespace {
const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a regular file";
}
}  // namespace

RegularFileRead read_regular_file(const std::filesystem::path& path, std::size_t max_bytes, unsigned max_links) {
  RegularFileRead r;
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (!fd.valid()) {
    const int err = errno;
    r.outcome = err == ENOENT || err == ENOTDIR ? RegularFileRead::Outcome::missing
                : err == ELOOP                  ? RegularFileRead::Outcome::not_regular
                                                : RegularFileRead::Outcome::unreadable;
    r.reason = err == ELOOP ? "is a symbolic link, not a regular file" : std::strerror(err);
    return r;
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) {
    r.reason = std::strerror(errno);
    return r;
  }
  if (!S_ISREG(st.st_mode)) {
    r.outcome = RegularFileRead::Outcome::not_regular;
    r.reason = std::string("is ") + kind_of(st.st_mode) + ", not a regular file";
    return r;
  }
  if (max_links > 0 && st.st_nlink > max_links) {
    r.outcome = RegularFileRead::Outcome::not_regular;
    r.reason = "has " + std::to_string(st.st_nlink) + " hard links (another name may be outside this folder)";
    return r;
  }
  if (static_cast<std::uintmax_t>(st.st_size) > max_bytes) {
    r.outcome = RegularFileRead::Outcome::too_large;
    r.reason = "is over " + std::to_string(max_bytes) + " bytes";
    return r;
  }
  // Read to the end even when the file grew since fstat, but never past the bound: one byte more says it did.
  const std::size_t limit = max_bytes + 1;
  std::string text(std::min(limit, static_cast<std::size_t>(st.st_size) + 1), '\0');
  std::size_t got = 0;
  for (;;) {
    if (got == text.size()) {
      if (text.size() == limit) break;
      text.resize(std::min(limit, text.size() * 2));
    }
    const ssize_t n = ::read(fd.get(), text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      r.reason = std::strerror(errno);
      return r;
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (got > max_bytes) {
    r.outcome = RegularFileRead::Outcome::too_large;
    r.reason = "is over " + std::to_string(max_bytes) + " bytes";
    return r;
  }
  text.resize(got);
  r.outcome = RegularFileRead::Outcome::ok;
  r.text = std::move(text);
  return r;
}

}  // namespace agentworks
