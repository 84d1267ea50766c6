// The checks every client makes before it sends a byte to the bridge socket, and that the bridge makes before it
// listens: the socket's directory is a real directory (not a symlink), owned by this user, mode 0700; the path is
// used through the opened directory's fd, so a rename after the check cannot redirect it; and the process that
// listens runs as this user (SO_PEERCRED). Another local user therefore cannot stand in for a person's bridge.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

struct stat;

namespace agentworks::private_socket {

// Why `st` (fstat of the opened `dir`) is not this user's private directory, with the command that fixes it;
// nullopt when it is one.
std::optional<std::string> unsafe_dir_reason(const struct stat& st, const std::filesystem::path& dir);

// Opens `dir` (O_DIRECTORY | O_NOFOLLOW) and checks it. Returns the fd, or -1 when the directory does not exist
// (no bridge ever ran there). Throws Error(forbidden) when it is a symlink, not a directory, owned by another
// user or open to others; Error(internal) for any other failure.
int open_checked_dir(const std::filesystem::path& dir);

// "/proc/self/fd/N/NAME": resolves through the opened directory whatever happens to its name meanwhile, and
// stays short whatever the directory's path length. Falls back to dir/NAME where /proc is not mounted.
std::string path_through_fd(int dir_fd, const std::filesystem::path& dir, const std::string& name);

// Why the process at the other end of the connected Unix socket `fd` is not this user's (with the fix), or nullopt.
std::optional<std::string> foreign_peer_reason(int fd, const std::filesystem::path& socket);

// Throws Error(forbidden) unless the process at the other end of the connected Unix socket `fd` runs as this
// user.
void check_peer_is_this_user(int fd, const std::filesystem::path& socket);

}  // namespace agentworks::private_socket
