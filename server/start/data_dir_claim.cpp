#include "start/data_dir_claim.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "agentworks/error.hpp"
#include "agentworks/private_file.hpp"
#include "agentworks/random.hpp"

namespace agentworks::server {
namespace {

std::string read_or_create_replica_id(const std::filesystem::path& path) {
  std::string id = read_file_if_exists(path).value_or("");
  while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
  if (id.rfind("rep_", 0) == 0) return id;
  id = new_id("rep");
  write_private_file(path, id + "\n");
  return id;
}

}  // namespace

DataDirClaim::DataDirClaim(const std::filesystem::path& dir) {
  const std::filesystem::path lock = dir / "server.lock";
  fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd_ < 0) throw Error(ErrorCode::internal, "cannot open " + lock.string() + ": " + std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd_);
    throw Error(ErrorCode::conflict, "another agentworks-server runs on --data " + dir.string() +
                                         "; stop it, or give this one a data directory of its own");
  }
  replica_id_ = read_or_create_replica_id(dir / "replica.id");
}

DataDirClaim::~DataDirClaim() { ::close(fd_); }

}  // namespace agentworks::server
