#include "http/listen_policy.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include "agentworks/error.hpp"
#include "http/tls_context.hpp"

namespace agentworks::server {

bool is_loopback_address(std::string_view host) {
  const std::string text(host);
  in_addr v4{};
  if (inet_pton(AF_INET, text.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  return inet_pton(AF_INET6, text.c_str(), &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6);
}

std::unique_ptr<TlsContext> prepare_listen_security(const ListenSecurity& s) {
  if (s.tls_cert.empty() != s.tls_key.empty()) {
    throw Error(ErrorCode::usage, s.tls_cert.empty() ? "--tls-key needs --tls-cert FILE (the certificate, PEM)"
                                                     : "--tls-cert needs --tls-key FILE (its private key, PEM)");
  }
  const bool tls = !s.tls_cert.empty();
  const std::string host = s.listen.substr(0, s.listen.rfind(':'));
  if (!tls && !s.behind_proxy && !is_loopback_address(host)) {
    throw Error(ErrorCode::usage,
                "refusing to serve plaintext HTTP on " + s.listen + ", beyond loopback: tokens would cross the "
                "network in clear; give --tls-cert FILE --tls-key FILE, or --behind-proxy when a TLS-terminating "
                "proxy is in front (then only the proxy may reach this address)");
  }
  if (!tls) return nullptr;
  return std::make_unique<TlsContext>(s.tls_cert, s.tls_key);
}

}  // namespace agentworks::server
