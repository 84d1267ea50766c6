#include "agentworks/sqlite_wal_coalescing.hpp"

#include <sqlite3.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <new>
#include <vector>

namespace agentworks::sql {

namespace {

constexpr const char* kVfsName = "agentworks-wal-coalescing";
constexpr std::size_t kWalFrameHeaderBytes = 24;
// A larger commit goes out in pieces of this size: the unix VFS writes at most 128 KiB - 1 bytes per call (it
// masks larger sizes), so a gathered write must stay below that.
constexpr std::size_t kMaxGathered = 120 * 1024;

sqlite3_vfs* underlying = nullptr;
std::atomic<std::uint64_t> writes_asked{0};
std::atomic<std::uint64_t> writes_made{0};

int write_through(sqlite3_file* f, const void* data, int amount, sqlite3_int64 offset) {
  writes_made.fetch_add(1, std::memory_order_relaxed);
  return f->pMethods->xWrite(f, data, amount, offset);
}

// What a WAL file holds back: bytes [offset, offset + bytes.size()) not yet handed to the kernel.
struct Gathered {
  std::vector<char> bytes;
  sqlite3_int64 offset = 0;
  sqlite3_int64 written_end = -1;  // where the last write ended: the next sequential write starts here
  bool commit_frame_open = false;  // the last write was the header of the frame that ends a commit
};

struct WalFile {
  sqlite3_file base;  // first: SQLite sees only this
  sqlite3_file* real;
  Gathered* gathered;
};

WalFile* wal(sqlite3_file* f) { return reinterpret_cast<WalFile*>(f); }
sqlite3_file* real(sqlite3_file* f) { return wal(f)->real; }

int write_gathered(WalFile* f) {
  Gathered& g = *f->gathered;
  if (g.bytes.empty()) return SQLITE_OK;
  const int rc = write_through(f->real, g.bytes.data(), static_cast<int>(g.bytes.size()), g.offset);
  g.bytes.clear();
  return rc;
}

// The frame header's second field is the database size after a commit, and zero on every other frame.
bool ends_a_commit(const void* header) {
  const auto* b = static_cast<const unsigned char*>(header);
  return (b[4] | b[5] | b[6] | b[7]) != 0;
}

int wal_write(sqlite3_file* file, const void* data, int amount, sqlite3_int64 offset) {
  writes_asked.fetch_add(1, std::memory_order_relaxed);
  WalFile* f = wal(file);
  Gathered& g = *f->gathered;
  const auto size = static_cast<std::size_t>(amount);
  const bool sequential = offset == g.written_end;
  const bool was_commit_header = g.commit_frame_open;
  g.commit_frame_open = false;
  if (!sequential || g.bytes.size() + size > kMaxGathered) {
    if (const int rc = write_gathered(f); rc != SQLITE_OK) return rc;
  }
  g.written_end = offset + amount;
  if (!sequential || size > kMaxGathered) return write_through(f->real, data, amount, offset);
  if (g.bytes.empty()) g.offset = offset;
  const auto* bytes = static_cast<const char*>(data);
  g.bytes.insert(g.bytes.end(), bytes, bytes + size);
  if (size == kWalFrameHeaderBytes && ends_a_commit(data)) g.commit_frame_open = true;
  // The commit's last page is here: the whole commit goes to the kernel now, and its error is the commit's.
  if (was_commit_header) return write_gathered(f);
  return SQLITE_OK;
}

int wal_close(sqlite3_file* file) {
  WalFile* f = wal(file);
  const int flushed = write_gathered(f);
  const int closed = f->real->pMethods->xClose(f->real);
  delete f->gathered;
  f->gathered = nullptr;
  return flushed != SQLITE_OK ? flushed : closed;
}

int wal_read(sqlite3_file* file, void* out, int amount, sqlite3_int64 offset) {
  if (const int rc = write_gathered(wal(file)); rc != SQLITE_OK) return rc;
  return real(file)->pMethods->xRead(real(file), out, amount, offset);
}

int wal_truncate(sqlite3_file* file, sqlite3_int64 size) {
  if (const int rc = write_gathered(wal(file)); rc != SQLITE_OK) return rc;
  wal(file)->gathered->written_end = -1;
  return real(file)->pMethods->xTruncate(real(file), size);
}

int wal_sync(sqlite3_file* file, int flags) {
  if (const int rc = write_gathered(wal(file)); rc != SQLITE_OK) return rc;
  return real(file)->pMethods->xSync(real(file), flags);
}

int wal_file_size(sqlite3_file* file, sqlite3_int64* size) {
  if (const int rc = write_gathered(wal(file)); rc != SQLITE_OK) return rc;
  return real(file)->pMethods->xFileSize(real(file), size);
}

int wal_lock(sqlite3_file* file, int level) {
  if (const int rc = write_gathered(wal(file)); rc != SQLITE_OK) return rc;
  return real(file)->pMethods->xLock(real(file), level);
}

int wal_unlock(sqlite3_file* file, int level) {
  if (const int rc = write_gathered(wal(file)); rc != SQLITE_OK) return rc;
  return real(file)->pMethods->xUnlock(real(file), level);
}

int wal_check_reserved_lock(sqlite3_file* file, int* out) {
  return real(file)->pMethods->xCheckReservedLock(real(file), out);
}

int wal_file_control(sqlite3_file* file, int op, void* arg) {
  if (const int rc = write_gathered(wal(file)); rc != SQLITE_OK) return rc;
  return real(file)->pMethods->xFileControl(real(file), op, arg);
}

int wal_sector_size(sqlite3_file* file) { return real(file)->pMethods->xSectorSize(real(file)); }

int wal_device_characteristics(sqlite3_file* file) {
  return real(file)->pMethods->xDeviceCharacteristics(real(file));
}

// A WAL file has no shared memory or memory map of its own: version 1 methods.
const sqlite3_io_methods kWalMethods = {
    1,  // iVersion
    wal_close,
    wal_read,
    wal_write,
    wal_truncate,
    wal_sync,
    wal_file_size,
    wal_lock,
    wal_unlock,
    wal_check_reserved_lock,
    wal_file_control,
    wal_sector_size,
    wal_device_characteristics,
    nullptr,  // xShmMap and the rest of version 2 and 3: not for a WAL file
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr};

std::size_t real_offset() { return (sizeof(WalFile) + 7) & ~std::size_t{7}; }

int open_file(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* file, int flags, int* out_flags) {
  // Every other file is the underlying VFS's own, opened in place: its methods, no wrapper.
  if ((flags & SQLITE_OPEN_WAL) == 0) return underlying->xOpen(underlying, name, file, flags, out_flags);
  WalFile* f = wal(file);
  f->base.pMethods = nullptr;
  f->real = reinterpret_cast<sqlite3_file*>(reinterpret_cast<char*>(file) + real_offset());
  f->gathered = new (std::nothrow) Gathered;
  if (f->gathered == nullptr) return SQLITE_NOMEM;
  const int rc = underlying->xOpen(underlying, name, f->real, flags, out_flags);
  if (rc != SQLITE_OK) {
    // SQLite closes only a file whose pMethods is set; the underlying VFS set the real one's if it needs a close.
    if (f->real->pMethods != nullptr) f->real->pMethods->xClose(f->real);
    delete f->gathered;
    f->gathered = nullptr;
    return rc;
  }
  f->base.pMethods = &kWalMethods;
  return SQLITE_OK;
}

// The rest is the underlying VFS's.
int delete_file(sqlite3_vfs*, const char* name, int sync_dir) {
  return underlying->xDelete(underlying, name, sync_dir);
}
int access(sqlite3_vfs*, const char* name, int flags, int* out) {
  return underlying->xAccess(underlying, name, flags, out);
}
int full_pathname(sqlite3_vfs*, const char* name, int n, char* out) {
  return underlying->xFullPathname(underlying, name, n, out);
}
void* dl_open(sqlite3_vfs*, const char* name) { return underlying->xDlOpen(underlying, name); }
void dl_error(sqlite3_vfs*, int n, char* out) { underlying->xDlError(underlying, n, out); }
void (*dl_sym(sqlite3_vfs*, void* handle, const char* symbol))(void) {
  return underlying->xDlSym(underlying, handle, symbol);
}
void dl_close(sqlite3_vfs*, void* handle) { underlying->xDlClose(underlying, handle); }
int randomness(sqlite3_vfs*, int n, char* out) { return underlying->xRandomness(underlying, n, out); }
int sleep_for(sqlite3_vfs*, int micros) { return underlying->xSleep(underlying, micros); }
int current_time(sqlite3_vfs*, double* out) { return underlying->xCurrentTime(underlying, out); }
int last_error(sqlite3_vfs*, int n, char* out) { return underlying->xGetLastError(underlying, n, out); }
int current_time_int64(sqlite3_vfs*, sqlite3_int64* out) { return underlying->xCurrentTimeInt64(underlying, out); }

sqlite3_vfs make_vfs() {
  sqlite3_vfs v{};
  v.iVersion = 2;
  v.szOsFile = static_cast<int>(real_offset()) + underlying->szOsFile;
  v.mxPathname = underlying->mxPathname;
  v.zName = kVfsName;
  v.xOpen = open_file;
  v.xDelete = delete_file;
  v.xAccess = access;
  v.xFullPathname = full_pathname;
  v.xDlOpen = dl_open;
  v.xDlError = dl_error;
  v.xDlSym = dl_sym;
  v.xDlClose = dl_close;
  v.xRandomness = randomness;
  v.xSleep = sleep_for;
  v.xCurrentTime = current_time;
  v.xGetLastError = last_error;
  v.xCurrentTimeInt64 = current_time_int64;
  return v;
}

}  // namespace

const char* wal_write_coalescing_vfs() {
  static std::once_flag once;
  static sqlite3_vfs vfs{};
  std::call_once(once, [] {
    // This is the first call into SQLite in the process, the last moment for process-wide settings. Memory
    // statistics cost a global mutex on every allocation (hundreds per request on the server's loop) and
    // nothing reads them. Refused (harmlessly) if something initialised SQLite earlier.
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    underlying = sqlite3_vfs_find(nullptr);
    vfs = make_vfs();
    sqlite3_vfs_register(&vfs, 0);
  });
  return kVfsName;
}

WalWriteCounts wal_write_counts() {
  return WalWriteCounts{writes_asked.load(std::memory_order_relaxed), writes_made.load(std::memory_order_relaxed)};
}

}  // namespace agentworks::sql
