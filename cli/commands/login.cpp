// agentworks login --server URL [--ca-file FILE] --token-stdin: verify the token with /v1/whoami, then save it
// (0600) with the CA bundle every later request to that server is verified with.
#include <iostream>
#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "agentworks/server_trust.hpp"
#include "checks.hpp"
#include "command.hpp"
#include "output.hpp"
#include "session.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

std::string trim(std::string s) {
  const char* ws = " \t\r\n";
  s.erase(s.find_last_not_of(ws) + 1);
  s.erase(0, s.find_first_not_of(ws));
  return s;
}

class Login final : public Command {
 public:
  void define(Options& options) override {
    options.option("--server", server_, "Server URL, e.g. http://127.0.0.1:7787 or https://HOST:PORT").required();
    options.option("--ca-file", ca_file_, "PEM CA bundle to verify the https server with (default: the system store)");
    options.flag("--token-stdin", token_stdin_, "Read the login token from stdin (it is never printed)");
  }

  json run(const Context& ctx) override {
    if (!token_stdin_) {
      throw Error(ErrorCode::usage,
                  "pass the token on stdin with --token-stdin (tokens are never taken as arguments)");
    }
    Config config;
    if (!ca_file_.empty()) config.ca_file = checked_ca_file(ca_file_);
    std::string token = trim(read_all_stdin());
    if (token.empty()) throw Error(ErrorCode::usage, "no token on stdin; pipe it in: ... | agentworks login --server URL --token-stdin");
    config.token = token;
    // The person's own setting outlives a new login.
    config.native = previous_native_setting(ctx.config_path);
    ServerClientOptions client_options;
    client_options.ca_file = config.ca_file;
    ServerClient client(server_, token, client_options);
    config.server_url = client.base_url();
    apply_whoami(config, client.get("/v1/whoami"));
    save_config(ctx.config_path, config);
    json result = public_login_json(config);
    result["logged_in"] = true;
    return result;
  }

  void print(const json& r) const override {
    std::cout << "logged in to " << text_or(r, "server_url") << " as account " << text_or(r, "account_name")
              << " (connection " << text_or(r, "connection_id") << ", " << text_or(r, "kind") << ")\n";
  }

 private:
  std::string server_;
  std::string ca_file_;
  bool token_stdin_ = false;
};

}  // namespace

std::unique_ptr<Command> make_login() { return std::make_unique<Login>(); }

}  // namespace agentworks::cli
