// The person's login file as the bridge reads it, never with a blocking open on its loop: a FIFO, a device or a
// directory at the path is refused, not opened for a blocking read (O_NONBLOCK makes opening a FIFO return at once;
// the type is checked on the opened descriptor, so a symlink to a regular file, a dotfile manager's, still works).
// current_login() `stat`s the default login at each use and reads and parses it again only when the file changed
// (its device, inode, size or modification time), so a new login applies without a restart and a request to the
// server no longer pays a read and a parse.
#pragma once

#include <sys/stat.h>

#include <filesystem>
#include <optional>

#include "agentworks/config.hpp"

namespace agentworks::bridge {

// The config at `path`; nullopt when there is none. Throws Error(bad_request), naming the file and the fix, when it
// cannot be read, is not a regular file or not a config. `opened` (optional) receives the file's stat.
std::optional<Config> read_config_file(const std::filesystem::path& path, struct stat* opened = nullptr);

struct LoginView {
  std::optional<Config> login;  // nullopt: no login file
  bool unreadable = false;      // the file is there but cannot be read or parsed, or is not a regular file
};

// The default login (paths::config_file()) as of now. Only from the loop's thread.
const LoginView& current_login();

}  // namespace agentworks::bridge
