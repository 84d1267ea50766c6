// The server's TLS settings (--tls-cert/--tls-key): one OpenSSL context, TLS 1.2 at least, checked whole at
// startup so a bad file or a key that does not match its certificate stops the server before it listens.
#pragma once

#include <memory>
#include <string>

struct ssl_ctx_st;
struct ssl_st;

namespace agentworks::server {

class TlsContext {
 public:
  // Throws Error(usage) naming the file and what to fix when either file is unusable or they do not match.
  TlsContext(const std::string& cert_file, const std::string& key_file);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  // A fresh server-side session for one accepted connection (nullptr when OpenSSL is out of memory).
  ssl_st* new_session() const;

 private:
  ssl_ctx_st* ctx_ = nullptr;
};

}  // namespace agentworks::server
