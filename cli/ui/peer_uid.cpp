#include "ui/peer_uid.hpp"

#include <arpa/inet.h>

#include <charconv>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace agentworks::cli::ui {
namespace {

std::vector<std::string_view> fields_of(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') ++i;
    const auto start = i;
    while (i < line.size() && line[i] != ' ') ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

template <typename T>
bool parse_hex(std::string_view text, T& value) {
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
  return ec == std::errc() && ptr == text.data() + text.size();
}

// "0100007F:1F90" (tcp) or "0000000000000000FFFF00000100007F:1F90" (tcp6, IPv4-mapped). The kernel prints each
// 32-bit word of the address as the host-order value of its network-order bytes, so on this machine the word
// compares equal to sockaddr_in's s_addr as it is.
bool endpoint_is(std::string_view text, bool ipv6, in_addr_t addr, in_port_t port) {
  const auto colon = text.find(':');
  if (colon == std::string_view::npos) return false;
  const auto address = text.substr(0, colon);
  std::uint32_t word = 0;
  if (ipv6) {
    if (address.size() != 32) return false;
    std::uint32_t w0 = 0, w1 = 0, w2 = 0;
    if (!parse_hex(address.substr(0, 8), w0) || !parse_hex(address.substr(8, 8), w1) ||
        !parse_hex(address.substr(16, 8), w2) || !parse_hex(address.substr(24, 8), word)) {
      return false;
    }
    if (w0 != 0 || w1 != 0 || w2 != htonl(0x0000ffff)) return false;
  } else if (address.size() != 8 || !parse_hex(address, word)) {
    return false;
  }
  std::uint32_t p = 0;
  if (!parse_hex(text.substr(colon + 1), p)) return false;
  return word == addr && p == ntohs(port);
}

std::string read_table(const char* path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::optional<uid_t> find_socket_uid(std::string_view table, bool ipv6, in_addr_t peer_addr, in_port_t peer_port,
                                     in_addr_t self_addr, in_port_t self_port) {
  bool header = true;
  while (!table.empty()) {
    const auto nl = table.find('\n');
    const auto line = table.substr(0, nl);
    table = nl == std::string_view::npos ? std::string_view() : table.substr(nl + 1);
    if (header) {  // the first line names the columns
      header = false;
      continue;
    }
    const auto f = fields_of(line);
    // sl local_address rem_address st tx:rx tr:when retrnsmt uid ...
    if (f.size() < 8) continue;
    if (!endpoint_is(f[1], ipv6, peer_addr, peer_port) || !endpoint_is(f[2], ipv6, self_addr, self_port)) continue;
    uid_t uid = 0;
    const auto [ptr, ec] = std::from_chars(f[7].data(), f[7].data() + f[7].size(), uid);
    if (ec != std::errc() || ptr != f[7].data() + f[7].size()) return std::nullopt;
    return uid;
  }
  return std::nullopt;
}

std::optional<uid_t> loopback_peer_uid(const sockaddr_in& peer, const sockaddr_in& self) {
  if (auto uid = find_socket_uid(read_table("/proc/net/tcp"), false, peer.sin_addr.s_addr, peer.sin_port,
                                 self.sin_addr.s_addr, self.sin_port)) {
    return uid;
  }
  return find_socket_uid(read_table("/proc/net/tcp6"), true, peer.sin_addr.s_addr, peer.sin_port,
                         self.sin_addr.s_addr, self.sin_port);
}

}  // namespace agentworks::cli::ui
