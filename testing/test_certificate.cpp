#include "testing/test_certificate.hpp"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cstdio>
#include <memory>
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

TestCertificate make_dated_test_certificate(const std::filesystem::path& dir, const std::string& name,
                                            long not_before_seconds, long not_after_seconds) {
  TestCertificate c{dir / (name + ".crt"), dir / (name + ".key")};
  const std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"),
                                                                &EVP_PKEY_free);
  const std::unique_ptr<X509, decltype(&X509_free)> x(X509_new(), &X509_free);
  if (!key || !x) throw std::runtime_error("OpenSSL could not make a key or a certificate");
  X509_set_version(x.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(x.get()), 1);
  X509_gmtime_adj(X509_getm_notBefore(x.get()), not_before_seconds);
  X509_gmtime_adj(X509_getm_notAfter(x.get()), not_after_seconds);
  X509_set_pubkey(x.get(), key.get());
  X509_NAME* subject = X509_get_subject_name(x.get());
  X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("localhost"), -1, -1,
                             0);
  X509_set_issuer_name(x.get(), subject);
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, x.get(), x.get(), nullptr, nullptr, 0);
  X509_EXTENSION* san = X509V3_EXT_conf_nid(nullptr, &ctx, NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1");
  if (san == nullptr || X509_add_ext(x.get(), san, -1) != 1) throw std::runtime_error("OpenSSL: no subjectAltName");
  X509_EXTENSION_free(san);
  if (X509_sign(x.get(), key.get(), EVP_sha256()) == 0) throw std::runtime_error("OpenSSL could not sign");
  const auto write = [](const std::filesystem::path& path, const auto& emit) {
    std::FILE* f = std::fopen(path.c_str(), "w");
    if (f == nullptr || emit(f) != 1) throw std::runtime_error("cannot write " + path.string());
    std::fclose(f);
  };
  write(c.key, [&](std::FILE* f) {
    return PEM_write_PrivateKey(f, key.get(), nullptr, nullptr, 0, nullptr, nullptr);
  });
  write(c.cert, [&](std::FILE* f) { return PEM_write_X509(f, x.get()); });
  return c;
}

}  // namespace agentworks::testing
