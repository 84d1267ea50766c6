// Who is on the other end of a loopback TCP connection. A Unix socket would say it with SO_PEERCRED; a browser
// only speaks TCP, so the kernel's socket tables (/proc/net/tcp, tcp6) are read instead: the peer's socket is the
// one whose local end is the peer address and whose remote end is ours, and the table names its owner's uid.
#pragma once

#include <netinet/in.h>
#include <sys/types.h>

#include <optional>
#include <string_view>

namespace agentworks::cli::ui {

// The uid owning the socket at `peer` connected to `self` (both IPv4 loopback), nullopt when the tables do not
// list it (then the connection must be refused: its owner is unknown).
std::optional<uid_t> loopback_peer_uid(const sockaddr_in& peer, const sockaddr_in& self);

// Pure: searches one table's text (the format of /proc/net/tcp, or of tcp6 with IPv4-mapped addresses) for the
// socket whose local end is peer and remote end is self; addresses as in sockaddr_in (network byte order).
std::optional<uid_t> find_socket_uid(std::string_view table, bool ipv6, in_addr_t peer_addr, in_port_t peer_port,
                                     in_addr_t self_addr, in_port_t self_port);

}  // namespace agentworks::cli::ui
