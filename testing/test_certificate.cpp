#include "testing/test_certificate.hpp"

#include <stdexcept>

#include "testing/process.hpp"

namespace agentworks::testing {

TestCertificate make_test_certificate(const std::filesystem::path& dir, const std::string& name) {
  TestCertificate c{dir / (name + ".crt"), dir / (name + ".key")};
  const ProcessResult r = run_process(
      {"/usr/bin/openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
       "-keyout", c.key.string(), "-out", c.cert.string(), "-days", "2", "-subj", "/CN=localhost", "-addext",
       "subjectAltName=DNS:localhost,IP:127.0.0.1"});
  if (r.exit_code != 0) {
    throw std::runtime_error("openssl could not make a test certificate (exit " + std::to_string(r.exit_code) +
                             "; install it with packaging/install-deps.sh): " + r.out + r.err);
  }
  return c;
}

}  // namespace agentworks::testing
