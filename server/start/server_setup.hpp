// Process-level setup shared by `serve`, `migrate` and `account add`: data directory, store, owner account,
// file limits.
#pragma once

#include <string>

#include "limits.hpp"

namespace agentworks::server {

struct ServeOptions {
  std::string listen = "127.0.0.1:0";
  std::string data_dir;
  std::string store_url;  // --store postgresql://...; empty: SQLite in data_dir
  Limits limits;
  int max_connections = 0;  // --max-connections; 0: derived from the open-file limit alone
  std::string tls_cert;      // --tls-cert/--tls-key: PEM files; both or neither
  std::string tls_key;
  bool behind_proxy = false;  // --behind-proxy: plaintext beyond loopback, a TLS-terminating proxy in front
};

// Runs the server until SIGTERM/SIGINT; returns the exit code.
int serve(const ServeOptions& opt);
// Adds an account to the store (a server may be running on it) and returns its login token.
std::string add_account(const std::string& data_dir, const std::string& store_url, const std::string& name);
// Creates or upgrades the store's schema; returns a line saying what it did.
std::string migrate(const std::string& data_dir, const std::string& store_url);

}  // namespace agentworks::server
