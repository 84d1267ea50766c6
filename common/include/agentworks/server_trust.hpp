// How every client (CLI, bridge) trusts the server: https is verified (the system CA store, or the CA bundle the
// login recorded with --ca-file), and plain http is only spoken to loopback, where no one else can listen in.
#pragma once

#include <string>
#include <string_view>

#include "agentworks/error.hpp"

namespace agentworks {

// localhost, 127.0.0.0/8 or ::1 (with or without brackets).
bool is_loopback_host(std::string_view host);
// The host of an http(s) URL ("" when there is none).
std::string url_host(std::string_view url);
// Throws Error(usage) for an http:// URL whose host is not loopback.
void check_server_url_security(std::string_view url);
// Checks a --ca-file at login: a readable file holding at least one PEM certificate. Returns its absolute path;
// throws Error(usage) saying what is wrong.
std::string checked_ca_file(const std::string& path);

// On a libcurl easy handle (`easy` is a CURL*): verify the peer (libcurl's default, set explicitly) against
// ca_file, or the system store when it is empty.
void apply_server_trust(void* easy, const std::string& ca_file);
// The curl result means the server's certificate was refused (not a network failure).
bool is_certificate_failure(int curl_code);
// Error(untrusted_certificate) for such a failure, saying how to fix it.
Error certificate_error(std::string_view base_url, std::string_view detail);

}  // namespace agentworks
