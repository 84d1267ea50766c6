#include "call/call_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "agentworks/error.hpp"
#include "agentworks/unique_fd.hpp"
#include "agentworks/validation.hpp"

namespace agentworks::functions {
namespace {

namespace fs = std::filesystem;

bool valid_utf8(std::string_view bytes) { return utf8_length(bytes).has_value(); }

// Bytes at the end that start a UTF-8 character the page does not hold completely.
std::size_t incomplete_tail(std::string_view bytes) {
  for (std::size_t back = 1; back <= 3 && back <= bytes.size(); ++back) {
    const auto c = static_cast<unsigned char>(bytes[bytes.size() - back]);
    if ((c & 0xC0) == 0x80) continue;  // a continuation byte: look further back
    std::size_t need = 1;
    if ((c & 0xE0) == 0xC0) need = 2;
    else if ((c & 0xF0) == 0xE0) need = 3;
    else if ((c & 0xF8) == 0xF0) need = 4;
    return need > back ? back : 0;
  }
  return 0;
}

std::vector<std::string> components(const std::string& name) {
  if (name.empty()) throw Error(ErrorCode::bad_request, "name the file to read (as listed in the call's files)");
  if (name.front() == '/')
    throw Error(ErrorCode::bad_request, "file names are relative to the call's folder; '" + name + "' is absolute");
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= name.size()) {
    const std::size_t slash = name.find('/', start);
    const std::string part = name.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    if (part == "..")
      throw Error(ErrorCode::bad_request, "file name '" + name + "' leaves the call's folder ('..' is refused)");
    if (!part.empty() && part != ".") parts.push_back(part);
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  if (parts.empty()) throw Error(ErrorCode::bad_request, "name a file, not the folder");
  return parts;
}

// Visits what is under `call_dir` without following links, at most kMaxWalkedEntries entries and kMaxWalkDepth
// levels deep: a request on the server's loop never pays for more than that, whatever the execution left there.
// `visit` returns false to stop.
template <typename Visit>
void walk_bounded(const fs::path& call_dir, Visit&& visit) {
  std::error_code ec;
  fs::recursive_directory_iterator it(call_dir, fs::directory_options::none, ec), end;
  for (std::size_t seen = 0; !ec && it != end && seen < kMaxWalkedEntries; it.increment(ec), ++seen) {
    if (it.depth() + 1 >= kMaxWalkDepth) it.disable_recursion_pending();
    if (!visit(*it)) return;
  }
}

}  // namespace

std::vector<CallFile> list_call_files(const fs::path& call_dir) {
  std::vector<CallFile> out;
  walk_bounded(call_dir, [&](const fs::directory_entry& e) {
    std::error_code sec;
    if (e.is_symlink(sec) || !e.is_regular_file(sec)) return true;
    struct stat st {};
    // A file with other names (hard links) may be a name for a file outside the folder: not the call's own.
    if (::lstat(e.path().c_str(), &st) != 0 || st.st_nlink > 1) return true;
    CallFile f;
    f.name = fs::relative(e.path(), call_dir, sec).string();
    f.size = st.st_size;
    f.modified = st.st_mtime;
    const UniqueFd fd(::open(e.path().c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (fd.get() >= 0) {
      std::string head(static_cast<std::size_t>(std::min<std::int64_t>(st.st_size, 64 * 1024)), '\0');
      const ssize_t n = ::pread(fd.get(), head.data(), head.size(), 0);
      head.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
      if (static_cast<std::int64_t>(head.size()) < st.st_size) head.resize(head.size() - incomplete_tail(head));
      f.text = valid_utf8(head);
    }
    out.push_back(std::move(f));
    return out.size() < kMaxListedFiles;
  });
  std::sort(out.begin(), out.end(), [](const CallFile& a, const CallFile& b) { return a.name < b.name; });
  return out;
}

FilePage page_of(std::string bytes, std::int64_t offset, std::int64_t size) {
  FilePage page;
  page.offset = offset;
  page.size = size;
  page.bytes = std::move(bytes);
  const bool to_end = page.offset + static_cast<std::int64_t>(page.bytes.size()) >= size;
  if (!to_end) {
    const std::size_t cut = incomplete_tail(page.bytes);
    if (cut > 0 && cut < page.bytes.size() && valid_utf8(std::string_view(page.bytes).substr(0, page.bytes.size() - cut)))
      page.bytes.resize(page.bytes.size() - cut);
  }
  page.text = valid_utf8(page.bytes);
  page.next_offset = page.offset + static_cast<std::int64_t>(page.bytes.size());
  page.eof = page.next_offset >= size;
  return page;
}

FilePage read_call_file(const fs::path& call_dir, const std::string& name, std::int64_t offset, std::int64_t limit) {
  const auto parts = components(name);
  int dir = ::open(call_dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir < 0) throw Error(ErrorCode::expired, "this call's output folder was removed by cleanup (7 days after its last change)");
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    const int next = ::openat(dir, parts[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    const int err = errno;
    ::close(dir);
    if (next < 0) {
      if (err == ENOENT) throw Error(ErrorCode::not_found, "no file '" + name + "' in this call's folder");
      throw Error(ErrorCode::bad_request, "file name '" + name + "' goes through '" + parts[i] +
                                              "', which is not a folder of the call (symlinks are not followed)");
    }
    dir = next;
  }
  const UniqueFd dir_fd(dir);
  const UniqueFd fd(::openat(dir, parts.back().c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ENOENT) throw Error(ErrorCode::not_found, "no file '" + name + "' in this call's folder");
    if (errno == ELOOP) throw Error(ErrorCode::bad_request, "'" + name + "' is a symlink; only the call's own files are readable");
    throw Error(ErrorCode::bad_request, "cannot read '" + name + "': " + std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
    throw Error(ErrorCode::bad_request, "'" + name + "' is not a regular file");
  // Another name of the same file may be outside the call's folder (a hard link made by the execution).
  if (st.st_nlink > 1)
    throw Error(ErrorCode::bad_request, "'" + name + "' has other names (hard links); only the call's own files "
                                        "are readable");
  FilePage page;
  page.size = st.st_size;
  page.offset = std::min<std::int64_t>(offset, st.st_size);
  const auto want = static_cast<std::size_t>(std::min<std::int64_t>(limit, st.st_size - page.offset));
  page.bytes.resize(want);
  std::size_t got = 0;
  while (got < want) {
    const ssize_t n = ::pread(fd.get(), page.bytes.data() + got, want - got, page.offset + static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  page.bytes.resize(got);
  return page_of(std::move(page.bytes), page.offset, page.size);
}

bool discard_call_folder(const fs::path& call_dir) {
  const fs::path trash = call_dir.parent_path() / kCallTrash;
  if (::mkdir(trash.c_str(), 0700) != 0 && errno != EEXIST) return false;
  return ::rename(call_dir.c_str(), (trash / call_dir.filename()).c_str()) == 0 || errno == ENOENT;
}

void empty_call_trash(const fs::path& calls_dir) {
  const fs::path trash = calls_dir / kCallTrash;
  std::vector<fs::path> seen;
  std::error_code ec;
  fs::recursive_directory_iterator it(trash, fs::directory_options::none, ec), end;
  for (; !ec && it != end && seen.size() < kMaxWalkedEntries; it.increment(ec)) seen.push_back(it->path());
  // Pre-order: a folder comes before what it holds, so from the back every folder is reached after its entries.
  for (auto p = seen.rbegin(); p != seen.rend(); ++p) fs::remove(*p, ec);
}

std::int64_t last_change(const fs::path& call_dir) {
  struct stat st {};
  if (::lstat(call_dir.c_str(), &st) != 0) return 0;
  std::int64_t newest = st.st_mtime;
  walk_bounded(call_dir, [&](const fs::directory_entry& e) {
    struct stat s {};
    if (::lstat(e.path().c_str(), &s) == 0) newest = std::max<std::int64_t>(newest, s.st_mtime);
    return true;
  });
  return newest;
}

}  // namespace agentworks::functions
