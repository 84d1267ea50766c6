#include "agentworks/server_trust.hpp"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace agentworks {

bool is_loopback_host(std::string_view host) {
  std::string h(host);
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  std::transform(h.begin(), h.end(), h.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (h == "localhost") return true;
  in_addr v4{};
  if (inet_pton(AF_INET, h.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  return inet_pton(AF_INET6, h.c_str(), &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6);
}

std::string url_host(std::string_view url) {
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return {};
  std::string_view rest = url.substr(scheme_end + 3);
  rest = rest.substr(0, rest.find_first_of("/?#"));
  if (const auto at = rest.rfind('@'); at != std::string_view::npos) rest = rest.substr(at + 1);
  if (!rest.empty() && rest.front() == '[') {
    const auto close = rest.find(']');
    return std::string(close == std::string_view::npos ? rest : rest.substr(0, close + 1));
  }
  return std::string(rest.substr(0, rest.find(':')));
}

void check_server_url_security(std::string_view url) {
  if (url.rfind("http://", 0) != 0) return;
  const std::string host = url_host(url);
  if (is_loopback_host(host)) return;
  throw Error(ErrorCode::usage, "refusing plain http to " + host + " (" + std::string(url) +
                                    "): the token would cross the network in clear; use an https:// URL "
                                    "(the server needs --tls-cert/--tls-key, or a TLS proxy in front)");
}

std::string checked_ca_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw Error(ErrorCode::usage, "cannot read --ca-file " + path + ": " + std::strerror(errno) +
                                      "; give the PEM file of the CA (or self-signed certificate) the server uses");
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (text.str().find("-----BEGIN CERTIFICATE-----") == std::string::npos) {
    throw Error(ErrorCode::usage, "--ca-file " + path + " holds no PEM certificate (no \"-----BEGIN "
                                  "CERTIFICATE-----\" line); give the CA certificate in PEM form");
  }
  std::error_code ec;
  const auto absolute = std::filesystem::absolute(path, ec);
  return ec ? path : absolute.lexically_normal().string();
}

void apply_server_trust(void* easy, const std::string& ca_file) {
  curl_easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, 2L);
  if (!ca_file.empty()) curl_easy_setopt(easy, CURLOPT_CAINFO, ca_file.c_str());
}

bool is_certificate_failure(int curl_code) {
  return curl_code == CURLE_PEER_FAILED_VERIFICATION || curl_code == CURLE_SSL_CACERT_BADFILE ||
         curl_code == CURLE_SSL_ISSUER_ERROR || curl_code == CURLE_SSL_PINNEDPUBKEYNOTMATCH;
}

Error certificate_error(std::string_view base_url, std::string_view detail) {
  return Error(ErrorCode::untrusted_certificate,
               "the TLS certificate of the agentworks server at " + std::string(base_url) + " is not trusted (" +
                   std::string(detail) + "); if the server uses its own CA or a self-signed certificate, log in with "
                   "`agentworks login --server URL --ca-file FILE --token-stdin`, else fix the server's certificate "
                   "(valid, issued for the host in the URL)");
}

}  // namespace agentworks
