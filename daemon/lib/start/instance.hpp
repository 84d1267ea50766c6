// Race-free start (R-B1): two concurrent starts leave exactly one bridge.
// The running bridge holds an flock on the lock file for its whole life; a stale socket is removed only by the
// process holding that lock.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "agentworks/paths.hpp"
#include "platform/unique_fd.hpp"

namespace agentworks::bridge {

inline constexpr const char* kSocketName = paths::kBridgeSocketName;
inline constexpr const char* kLockName = "bridge.lock";

// What a successful claim holds: keep both alive while the bridge runs.
struct Instance {
  UniqueFd lock;       // flock(LOCK_EX) held; contains our pid
  UniqueFd listener;   // listening AF_UNIX socket, mode 0600
  std::filesystem::path socket_path;
};

struct ClaimResult {
  std::optional<Instance> instance;  // set when this process became the bridge
  std::string already_running;       // otherwise: who is running (e.g. "pid 1234")
};

// dir_fd/dir: the opened private runtime directory. Throws StartupError when the socket cannot be created or
// a lock holder never answers.
ClaimResult claim_instance(int dir_fd, const std::filesystem::path& dir);

// True when something accepts connections on the bridge socket in the opened directory dir_fd (dir). Throws
// StartupError when the process that listens there runs as another user.
bool socket_answers(int dir_fd, const std::filesystem::path& dir);

// Removes the socket while still holding the lock (clean shutdown).
void release_instance(Instance& instance, int dir_fd);

}  // namespace agentworks::bridge
