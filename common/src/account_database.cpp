// The account database (NSS: LDAP, SSSD, systemd-homed as well as /etc/passwd) for home_dir() when HOME is unset.
// Its own file, outside agentworks_core, so the hook never links getpwuid (paths.hpp).
#include <pwd.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "agentworks/paths.hpp"

namespace agentworks::paths {
namespace {

std::string home_from_account_database() {
  passwd entry{};
  passwd* found = nullptr;
  std::vector<char> buffer(16384);
  if (getpwuid_r(::getuid(), &entry, buffer.data(), buffer.size(), &found) != 0 || found == nullptr) return {};
  if (entry.pw_dir == nullptr || entry.pw_dir[0] != '/') return {};
  return entry.pw_dir;
}

}  // namespace

void use_account_database() { account_database_home = &home_from_account_database; }

}  // namespace agentworks::paths
