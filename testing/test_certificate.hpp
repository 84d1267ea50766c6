// Self-signed TLS certificates for tests, made at test time with the `openssl` command (packaging/install-deps.sh
// installs it): an EC P-256 key and a certificate for localhost and 127.0.0.1, valid for two days.
#pragma once

#include <filesystem>
#include <string>

namespace agentworks::testing {

struct TestCertificate {
  std::filesystem::path cert;  // PEM certificate (it is also its own CA: give it as --ca-file)
  std::filesystem::path key;   // PEM private key, unencrypted
};

// Writes NAME.crt and NAME.key into `dir`; throws std::runtime_error with openssl's output when it fails.
TestCertificate make_test_certificate(const std::filesystem::path& dir, const std::string& name);

// The same kind of certificate, valid from now + `not_before_seconds` to now + `not_after_seconds` (negative: in
// the past), made with OpenSSL's library (the command cannot date a certificate back).
TestCertificate make_dated_test_certificate(const std::filesystem::path& dir, const std::string& name,
                                            long not_before_seconds, long not_after_seconds);

}  // namespace agentworks::testing
