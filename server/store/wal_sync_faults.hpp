// The WAL flush the HTTP server uses, with the test builds' faults (AGENTWORKS_FAILPOINTS). When the environment
// variable AGENTWORKS_FAILPOINT holds
//   server.wal_sync_fails_while:PATH   every flush fails with EIO while PATH exists;
//   server.wal_sync_waits_while:PATH   every flush first creates PATH.entered, then waits while PATH exists;
// so that a test can hold a flush or make it fail without a fixed sleep, then let it go by removing PATH.
#pragma once

#include <filesystem>
#include <memory>

#include "store/wal_syncer.hpp"

namespace agentworks::server {

std::unique_ptr<WalSyncer> make_wal_syncer(const std::filesystem::path& wal_path);

}  // namespace agentworks::server
