// One server process per data directory, held for the process's life (the kernel drops the lock when the process
// dies, kill -9 included). The directory's replica id outlives the process: a restarted server knows the calls its
// predecessor ran as its own, and interrupts them at once instead of waiting for their leases to lapse.
#pragma once

#include <filesystem>
#include <string>

namespace agentworks::server {

class DataDirClaim {
 public:
  // Throws Error(conflict) when another server holds `dir`.
  explicit DataDirClaim(const std::filesystem::path& dir);
  ~DataDirClaim();
  DataDirClaim(const DataDirClaim&) = delete;
  DataDirClaim& operator=(const DataDirClaim&) = delete;
  const std::string& replica_id() const { return replica_id_; }

 private:
  int fd_ = -1;
  std::string replica_id_;
};

}  // namespace agentworks::server
