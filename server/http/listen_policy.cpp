#include "http/listen_policy.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include "agentworks/error.hpp"
#include "http/tls_context.hpp"

namespace agentworks::server {

ListenAddress parse_listen_address(const std::string& listen) {
  const auto refuse = [&]() -> ListenAddress {
    throw Error(ErrorCode::usage, "--listen must be IPV4:PORT or [IPV6]:PORT, e.g. 127.0.0.1:0 or [::1]:0 (got '" +
                                      listen + "')");
  };
  ListenAddress a;
  std::string port_text;
  if (!listen.empty() && listen.front() == '[') {
    const auto close = listen.find(']');
    if (close == std::string::npos || close + 1 >= listen.size() || listen[close + 1] != ':') return refuse();
    a.host = listen.substr(1, close - 1);
    a.ipv6 = true;
    port_text = listen.substr(close + 2);
    in6_addr v6{};
    if (inet_pton(AF_INET6, a.host.c_str(), &v6) != 1) return refuse();
  } else {
    const auto colon = listen.rfind(':');
    if (colon == std::string::npos) return refuse();
    a.host = listen.substr(0, colon);
    port_text = listen.substr(colon + 1);
    in_addr v4{};
    if (inet_pton(AF_INET, a.host.c_str(), &v4) != 1) return refuse();
  }
  if (port_text.empty() || port_text.size() > 5 || port_text.find_first_not_of("0123456789") != std::string::npos)
    return refuse();
  a.port = std::stoi(port_text);
  if (a.port > 65535) return refuse();
  return a;
}

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
  const std::string host = parse_listen_address(s.listen).host;
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
