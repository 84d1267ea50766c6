// What the fault tests need from the machine, each with a reason to skip when it is missing: a small tmpfs
// (mount(2) needs root, as CI runs) to fill a disk for real, and libfiu's POSIX preload to make fdatasync or
// pwrite fail inside a running server or bridge, switched on and off through its control fifo.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>

#include "testing/process.hpp"

namespace agentworks::testing {

// A tmpfs of `bytes` mounted on `dir` (created) for the object's lifetime, then lazily unmounted.
class SmallTmpfs {
 public:
  // nullopt with `why` set when mounting is not permitted here (not root, no CAP_SYS_ADMIN, no tmpfs).
  static std::optional<SmallTmpfs> mount(const std::filesystem::path& dir, std::size_t bytes, std::string& why);
  SmallTmpfs(SmallTmpfs&& other) noexcept : dir_(std::move(other.dir_)) { other.dir_.clear(); }
  SmallTmpfs& operator=(SmallTmpfs&&) = delete;
  SmallTmpfs(const SmallTmpfs&) = delete;
  ~SmallTmpfs();

  // Writes a filler file until the file system is full (ENOSPC); release() deletes it, so space returns.
  void fill();
  void release();
  const std::filesystem::path& dir() const { return dir_; }

 private:
  explicit SmallTmpfs(std::filesystem::path dir) : dir_(std::move(dir)) {}
  std::filesystem::path dir_;
};

// libfiu's POSIX preload for a child: LD_PRELOAD plus the control fifo prefix. nullopt with `why` set when
// libfiu (Debian libfiu0 / fiu-utils) is not installed.
std::optional<EnvOverrides> fiu_env(const std::filesystem::path& fifo_prefix, std::string& why);

// `fiu-ctrl -f PREFIX -c COMMAND PID`, e.g. "enable name=posix/io/sync/fdatasync,failinfo=5" (failinfo is the
// errno). True when the child acknowledged.
bool fiu_ctrl(const std::filesystem::path& fifo_prefix, pid_t pid, const std::string& command);

}  // namespace agentworks::testing
