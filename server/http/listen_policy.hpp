// Which listeners the server accepts: plaintext only on loopback, unless TLS is on (--tls-cert/--tls-key) or a
// TLS-terminating proxy is declared in front (--behind-proxy). Checked before anything is opened or created.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace agentworks::server {

class TlsContext;

// --listen, parsed: `IPV4:PORT` or `[IPV6]:PORT` (PORT 0 picks a free port).
struct ListenAddress {
  std::string host;  // without brackets
  int port = 0;
  bool ipv6 = false;
  std::string url_host() const { return ipv6 ? "[" + host + "]" : host; }  // as it appears in a URL
};
// Throws Error(usage) saying the two accepted forms for anything else.
ListenAddress parse_listen_address(const std::string& listen);

struct ListenSecurity {
  std::string listen;  // --listen HOST:PORT
  std::string tls_cert;
  std::string tls_key;
  bool behind_proxy = false;
};

// 127.0.0.0/8 and ::1 (0.0.0.0 is every address, so not loopback).
bool is_loopback_address(std::string_view host);

// Throws Error(usage) for a lone --tls-cert/--tls-key or a plaintext listener beyond loopback; returns the
// loaded TLS context when TLS is on (nullptr for plaintext).
std::unique_ptr<TlsContext> prepare_listen_security(const ListenSecurity& security);

}  // namespace agentworks::server
