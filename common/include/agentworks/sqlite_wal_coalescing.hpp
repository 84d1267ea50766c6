// SQLite writes each WAL frame with two system calls (its 24-byte header, then the page), so a commit of N pages
// costs 2N pwrite calls (on the server's event loop, in the bridge's take). This VFS wraps the default one and
// gathers a WAL file's sequential writes in memory, handing them to the kernel in one pwrite:
// - at once when the frame that ends a commit has been gathered, so a commit's write error still fails that commit;
// - before any other use of the WAL file (read, sync, truncate, size, lock, file control, close), so SQLite never
//   reads or syncs around bytes still held here.
// Writes that are not sequential (a rewritten header, the WAL header on a restart) go through as they come. Nothing
// is reordered and no sync is skipped; a process that dies with bytes gathered loses what it had not yet written,
// exactly as if it had died before writing them.
#pragma once

#include <cstdint>

namespace agentworks::sql {

// Registers the VFS once (never as the default) and returns its name for sqlite3_open_v2.
const char* wal_write_coalescing_vfs();

// Process-wide counts of WAL writes SQLite asked for and write calls made for them (tests, benchmarks).
struct WalWriteCounts {
  std::uint64_t asked = 0;
  std::uint64_t written = 0;
};
WalWriteCounts wal_write_counts();

}  // namespace agentworks::sql
