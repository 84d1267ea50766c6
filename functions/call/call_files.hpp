// The files of one call's folder: listing for status, bounded paged reads that cannot leave the folder (R-F4).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace agentworks::functions {

inline constexpr std::int64_t kMaxFilePageBytes = 2 * 1024 * 1024;
inline constexpr std::int64_t kDefaultFilePageBytes = 256 * 1024;
inline constexpr std::size_t kMaxListedFiles = 1000;
// What one walk of a call's folder looks at, at most (entries, and levels below the folder).
inline constexpr std::size_t kMaxWalkedEntries = 10000;
inline constexpr int kMaxWalkDepth = 16;

struct CallFile {
  std::string name;  // relative to the call's folder
  std::int64_t size = 0;
  bool text = false;  // valid UTF-8 (judged on its first 64 KiB)
  std::int64_t modified = 0;
};

// Regular files under `call_dir` (symlinks are not followed or listed), sorted by name: of the first
// kMaxWalkedEntries entries, kMaxWalkDepth levels deep, at most kMaxListedFiles files.
std::vector<CallFile> list_call_files(const std::filesystem::path& call_dir);

struct FilePage {
  std::int64_t offset = 0;
  std::int64_t size = 0;         // the whole file
  std::int64_t next_offset = 0;
  bool eof = false;
  bool text = false;             // `bytes` is valid UTF-8 (and does not end inside a character)
  std::string bytes;
};

// A page of `bytes` read at `offset` of a file of `size` bytes: a text page never ends inside a character.
FilePage page_of(std::string bytes, std::int64_t offset, std::int64_t size);

// Reads `name` (relative, no "..", no symlink on the way) at offset/limit. bad_request for a name that would
// leave the folder, not_found for a missing file, expired when the folder itself is gone.
FilePage read_call_file(const std::filesystem::path& call_dir, const std::string& name, std::int64_t offset,
                        std::int64_t limit);

// Expired call folders leave at once by a rename into `.calls/.trash/` (one system call, whatever they hold);
// empty_call_trash removes what one bounded walk of the trash finds (at most kMaxWalkedEntries entries, the
// deepest first), so a huge folder goes over several sweeps and never in one request.
inline constexpr const char* kCallTrash = ".trash";
bool discard_call_folder(const std::filesystem::path& call_dir);  // false (and logged by the caller) on failure
void empty_call_trash(const std::filesystem::path& calls_dir);

// The newest modification time of the folder or anything under it (the cleanup clock; the walk is bounded like
// the listing's, so a folder of more entries is judged by the first ones); 0 when it is gone.
std::int64_t last_change(const std::filesystem::path& call_dir);

}  // namespace agentworks::functions
