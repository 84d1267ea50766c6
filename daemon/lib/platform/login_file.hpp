// The person's login file as the bridge's loop reads it: `stat` at each use, read and parsed again only when the
// file changed (its device, inode, size or modification time), so a new login applies without a restart and a
// request to the server no longer pays a read and a parse. Never blocks the loop: only a regular file is opened,
// and without waiting (a FIFO left at the path would otherwise hang the open, and the bridge with it).
#pragma once

#include <optional>

#include "agentworks/config.hpp"

namespace agentworks::bridge {

struct LoginView {
  std::optional<Config> login;  // nullopt: no login file
  bool unreadable = false;      // the file is there but cannot be read or parsed, or is not a regular file
};

// The login as of now. Only from the loop's thread.
const LoginView& current_login();

}  // namespace agentworks::bridge
