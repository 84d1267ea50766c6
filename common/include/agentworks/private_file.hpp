// Small files that hold secrets or process state (CLI config, embedded server record).
// Written atomically (temp file + fsync + rename) with mode 0600, so a crash never leaves half a file
// and no other user can read a token.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace agentworks {

// Writes `content` to `path` atomically with mode 0600. Missing parent directories are created 0700
// (existing ones are left as they are). Throws Error(internal) with the path and reason on failure.
void write_private_file(const std::filesystem::path& path, std::string_view content);

// Creates `dir` and its missing parents with mode 0700 (existing directories are left as they are).
void make_private_dirs(const std::filesystem::path& dir);

// The whole file, or nullopt when it does not exist. Throws Error(internal) when it exists but cannot be read.
std::optional<std::string> read_file_if_exists(const std::filesystem::path& path);

}  // namespace agentworks
