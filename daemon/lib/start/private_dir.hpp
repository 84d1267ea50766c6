// The bridge's private directories (invariant 9): created 0700 and checked on the OPENED directory, so a
// symlink swapped in or a directory owned by someone else makes the bridge refuse to start.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

#include "platform/unique_fd.hpp"

namespace agentworks::bridge {

// A start-up refusal with a message that tells the person what is wrong and what to do.
class StartupError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Creates `path` (mode 0700; missing parents are created 0700 too) and opens it with
// O_DIRECTORY|O_NOFOLLOW. On the opened descriptor it checks: a directory, owned by getuid(), mode exactly
// 0700. Throws StartupError otherwise (symlink, foreign owner, wider permissions).
UniqueFd open_private_dir(const std::filesystem::path& path);

// Like open_private_dir, but an existing directory owned by the user with wider permissions is tightened to
// 0700 instead of refused (the state directory may have been created by another tool).
UniqueFd open_owned_dir_tightening(const std::filesystem::path& path);

}  // namespace agentworks::bridge
