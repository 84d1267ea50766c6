#include "testing/net_probe.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

namespace agentworks::testing {
namespace fs = std::filesystem;

int closed_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error("socket failed");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = 0;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    ::close(fd);
    throw std::runtime_error("bind/getsockname failed");
  }
  ::close(fd);  // never listened: connecting is refused
  return ntohs(addr.sin_port);
}

bool has_tcp_connection_to(pid_t pid, int port) {
  // Socket inodes the process holds.
  std::set<std::string> inodes;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(fs::path("/proc") / std::to_string(pid) / "fd", ec)) {
    std::error_code ec2;
    const std::string target = fs::read_symlink(entry.path(), ec2).string();
    if (!ec2 && target.rfind("socket:[", 0) == 0) inodes.insert(target.substr(8, target.size() - 9));
  }
  if (inodes.empty()) return false;
  // /proc/net/tcp: "sl local_address rem_address st ... inode"; addresses are HEX_IP:HEX_PORT.
  std::ifstream tcp("/proc/net/tcp");
  std::string line;
  std::getline(tcp, line);  // header
  char want_port[8];
  std::snprintf(want_port, sizeof want_port, "%04X", static_cast<unsigned>(port));
  while (std::getline(tcp, line)) {
    std::istringstream fields(line);
    std::string sl, local, remote, state, txrx, trtm, retr, uid, timeout, inode;
    fields >> sl >> local >> remote >> state >> txrx >> trtm >> retr >> uid >> timeout >> inode;
    if (state != "01") continue;  // ESTABLISHED
    if (remote.size() < 5 || remote.substr(remote.size() - 4) != want_port) continue;
    if (inodes.count(inode) != 0) return true;
  }
  return false;
}

}  // namespace agentworks::testing
