#include "support/fault_env.hpp"

#include <fcntl.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace agentworks::testing {
namespace {

constexpr const char* kFiuDir = "/usr/lib/fiu";
constexpr const char* kFiuCtrl = "/usr/bin/fiu-ctrl";

}  // namespace

std::optional<SmallTmpfs> SmallTmpfs::mount(const std::filesystem::path& dir, std::size_t bytes, std::string& why) {
  std::filesystem::create_directories(dir);
  const std::string opts = "size=" + std::to_string(bytes) + ",mode=0700";
  if (::mount("tmpfs", dir.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, opts.c_str()) != 0) {
    why = std::string("cannot mount a tmpfs (") + std::strerror(errno) +
          "): the full-disk tests need root (CI runs as root)";
    return std::nullopt;
  }
  return SmallTmpfs(dir);
}

SmallTmpfs::~SmallTmpfs() {
  if (!dir_.empty()) ::umount2(dir_.c_str(), MNT_DETACH);
}

void SmallTmpfs::fill() {
  const auto path = dir_ / "filler";
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) throw std::runtime_error("cannot create " + path.string() + ": " + std::strerror(errno));
  const std::vector<char> block(4096, 'x');
  while (true) {
    const ssize_t n = ::write(fd, block.data(), block.size());
    if (n < 0 && errno == ENOSPC) break;
    if (n < 0 && errno != EINTR) {
      ::close(fd);
      throw std::runtime_error(std::string("filling the tmpfs: ") + std::strerror(errno));
    }
    // A short write means the last block did not fit: the next one fails with ENOSPC.
  }
  ::close(fd);
}

void SmallTmpfs::release() { std::filesystem::remove(dir_ / "filler"); }

std::optional<EnvOverrides> fiu_env(const std::filesystem::path& fifo_prefix, std::string& why) {
#if defined(__SANITIZE_ADDRESS__)
  // ASan's runtime must come first in the library list, and libfiu's preload would come before it; both interpose
  // the same libc calls. The default preset runs these tests; the full-disk tests run under ASan too.
  why = "libfiu's LD_PRELOAD cannot be combined with ASan's runtime; these run in the default (non-ASan) preset";
  return std::nullopt;
#endif
  const std::string run = std::string(kFiuDir) + "/fiu_run_preload.so";
  const std::string posix = std::string(kFiuDir) + "/fiu_posix_preload.so";
  if (!std::filesystem::exists(run) || !std::filesystem::exists(posix) || !std::filesystem::exists(kFiuCtrl)) {
    why = "libfiu is not installed (apt-get install libfiu-dev fiu-utils; packaging/install-deps.sh does)";
    return std::nullopt;
  }
  return EnvOverrides{{"LD_PRELOAD", run + " " + posix},
                      {"FIU_CTRL_FIFO", fifo_prefix.string()},
                      {"FIU_ENABLE", std::string()}};
}

bool fiu_ctrl(const std::filesystem::path& fifo_prefix, pid_t pid, const std::string& command) {
  RunOptions options;
  options.timeout = std::chrono::seconds(10);
  const auto r = run_process({kFiuCtrl, "-f", fifo_prefix.string(), "-c", command, std::to_string(pid)}, options);
  return r.exit_code == 0;
}

}  // namespace agentworks::testing
