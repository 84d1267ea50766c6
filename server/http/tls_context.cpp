#include "http/tls_context.hpp"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "agentworks/error.hpp"

namespace agentworks::server {
namespace {

// The first reason OpenSSL queued (the root cause, e.g. "no start line" under "PEM lib"); the queue is emptied.
std::string openssl_reason() {
  std::string reason;
  while (const unsigned long e = ERR_get_error()) {
    const char* text = ERR_reason_error_string(e);
    if (reason.empty() && text != nullptr) reason = text;
  }
  return reason.empty() ? "unknown OpenSSL error" : reason;
}

// An encrypted key would make OpenSSL prompt on the terminal; the server runs unattended, so it is refused.
int refuse_passphrase(char*, int, int, void*) { return 0; }

void require_readable(const std::string& flag, const std::string& file) {
  std::FILE* f = std::fopen(file.c_str(), "rb");
  if (f == nullptr) {
    throw Error(ErrorCode::usage, "cannot read " + flag + " " + file + ": " + std::strerror(errno) +
                                      "; give a readable PEM file");
  }
  std::fclose(f);
}

EVP_PKEY* read_private_key(const std::string& key_file) {
  require_readable("--tls-key", key_file);
  BIO* bio = BIO_new_file(key_file.c_str(), "r");
  EVP_PKEY* key = bio == nullptr ? nullptr : PEM_read_bio_PrivateKey(bio, nullptr, &refuse_passphrase, nullptr);
  BIO_free(bio);
  if (key == nullptr) {
    throw Error(ErrorCode::usage, "--tls-key " + key_file + " is not a usable private key (" + openssl_reason() +
                                      "); give the certificate's private key as unencrypted PEM");
  }
  return key;
}

std::string asn1_time_text(const ASN1_TIME* t) {
  BIO* bio = BIO_new(BIO_s_mem());
  if (bio == nullptr) return "?";
  ASN1_TIME_print(bio, t);
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  std::string text(data != nullptr && n > 0 ? std::string(data, static_cast<std::size_t>(n)) : std::string("?"));
  BIO_free(bio);
  return text;
}

// Why a certificate cannot be served now ("" when it can): every client would refuse an expired or not yet valid
// one, so the server says so at start with the dates instead of failing each handshake.
std::string validity_problem(X509* cert) {
  const ASN1_TIME* not_before = X509_get0_notBefore(cert);
  const ASN1_TIME* not_after = X509_get0_notAfter(cert);
  if (X509_cmp_current_time(not_after) < 0) return "expired on " + asn1_time_text(not_after);
  if (X509_cmp_current_time(not_before) > 0) return "is not valid before " + asn1_time_text(not_before);
  return "";
}

}  // namespace

TlsContext::TlsContext(const std::string& cert_file, const std::string& key_file) {
  require_readable("--tls-cert", cert_file);
  EVP_PKEY* key = read_private_key(key_file);
  ctx_ = SSL_CTX_new(TLS_server_method());
  if (ctx_ == nullptr) {
    EVP_PKEY_free(key);
    throw Error(ErrorCode::internal, "cannot create the TLS context: " + openssl_reason());
  }
  std::string problem;
  if (SSL_CTX_set_min_proto_version(ctx_, TLS1_2_VERSION) != 1) {
    problem = "cannot require TLS 1.2: " + openssl_reason();
  } else if (SSL_CTX_use_certificate_chain_file(ctx_, cert_file.c_str()) != 1) {
    problem = "--tls-cert " + cert_file + " is not a usable certificate (" + openssl_reason() +
              "); give the server's certificate as PEM, followed by any intermediate certificates";
  } else if (X509_check_private_key(SSL_CTX_get0_certificate(ctx_), key) != 1) {
    openssl_reason();
    problem = "--tls-key " + key_file + " does not match --tls-cert " + cert_file +
              "; give the private key the certificate was issued for";
  } else if (SSL_CTX_use_PrivateKey(ctx_, key) != 1) {
    problem = "cannot use --tls-key " + key_file + ": " + openssl_reason();
  } else if (const std::string dates = validity_problem(SSL_CTX_get0_certificate(ctx_)); !dates.empty()) {
    problem = "--tls-cert " + cert_file + " " + dates + " (clients refuse it); give a certificate valid now";
  }
  EVP_PKEY_free(key);
  if (!problem.empty()) {
    SSL_CTX_free(ctx_);
    throw Error(ErrorCode::usage, problem);
  }
  // No renegotiation (a CPU sink for clients); buffers freed while a connection is idle (a thousand streams).
  SSL_CTX_set_options(ctx_, SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  SSL_CTX_set_mode(ctx_, SSL_MODE_RELEASE_BUFFERS);
}

TlsContext::~TlsContext() { SSL_CTX_free(ctx_); }

ssl_st* TlsContext::new_session() const { return SSL_new(ctx_); }

}  // namespace agentworks::server
