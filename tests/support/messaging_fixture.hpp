// A GoogleTest fixture for server+CLI tests: a temp HOME, a server of its own (with the test's limit flags),
// the owner's CLI logged in (default XDG config), and shortcuts for the common calls. Helpers throw
// std::runtime_error with the full CLI/HTTP exchange when a call that must succeed fails.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "testing/cli_runner.hpp"
#include "testing/http_client.hpp"
#include "testing/json_util.hpp"
#include "testing/server_process.hpp"
#include "testing/temp_home.hpp"

namespace agentworks::testing {

using nlohmann::json;

// A login (or child) connection: its token, its id, a CLI logged in with it (own config file) and HTTP.
struct Identity {
  std::string token;
  std::string connection_id;
  Cli cli;
  HttpClient http;
};

class MessagingTest : public ::testing::Test {
 protected:
  void TearDown() override;

  // Starts the server with `extra_args` (and `extra_env` over the temp home's environment, kept for restarts) and
  // logs the owner in. Call once at the start of each test.
  void start_server(const std::vector<std::string>& extra_args = {}, const EnvOverrides& extra_env = {});
  // The temp home's environment plus start_server's `extra_env`: what the server runs with.
  EnvOverrides server_env() const;
  // Kills the server (a crash) and starts it again on the same port, data and arguments, as after an outage.
  void kill_server() { server_->kill(); }
  void restart_server_same_port();

  // A new account (agentworks-server account add), logged in with a CLI config of its own.
  Identity add_account(const std::string& name);
  // A child connection for `agent_name`, created by `parent_token`, logged in with a CLI config of its own.
  Identity create_child(const std::string& parent_token, const std::string& agent_name);
  // Another login connection of the same account (a second device), created by `login_token`.
  Identity create_login(const std::string& login_token, const std::string& tag);
  // Logs a CLI (own config file `tag`.json in the temp home) in with `token`.
  Identity login_identity(const std::string& token, const std::string& tag);

  // CLI calls that must succeed (exit 0); they return the --json output.
  json cli_ok(const Cli& cli, const std::vector<std::string>& args);
  json register_agent(const Cli& cli, const std::string& name, const std::vector<std::string>& extra = {});
  json send_as(const Cli& cli, const std::string& agent, const std::string& target, const std::string& text,
               const std::vector<std::string>& extra = {});
  json reply_in(const Cli& cli, const std::string& agent, const std::string& inbox, const std::string& text);
  json read_mailbox(const Cli& cli, const std::string& agent, const std::string& after = "0");
  json read_inbox(const Cli& cli, const std::string& inbox, const std::string& after = "0");

  // HTTP calls with a JSON answer; throws unless the status is `expected_status`
  // (0: any 2xx).
  json http_json(const HttpClient& http, const std::string& method, const std::string& path,
                 const std::optional<std::string>& body, int expected_status);
  std::string whoami_connection_id(const HttpClient& http);
  // A server attachment of `agent` for a Claude session, made by the owner (POST /v1/attachments, 201).
  json attach_over_http(const std::string& agent, const std::string& session,
                        const std::string& purpose = "Review PRs");

  // Owner shortcuts.
  const Cli& owner() const { return *owner_cli_; }
  const HttpClient& owner_http() const { return *owner_http_; }
  const std::string& owner_token() const { return owner_token_; }
  std::string owner_connection_id() { return whoami_connection_id(owner_http()); }

  TempHome home_;
  std::unique_ptr<ServerProcess> server_;
  EnvOverrides server_extra_env_;
  std::vector<std::string> server_extra_args_;

 private:
  std::unique_ptr<Cli> owner_cli_;
  std::unique_ptr<HttpClient> owner_http_;
  std::string owner_token_;
};

// Texts of the messages in a read page, in order.
std::vector<std::string> texts_of(const json& page);
// Describes an HTTP answer for assertion messages.
std::string describe(const HttpResponse& response);
// A string of `count` copies of `unit`.
std::string repeat(const std::string& unit, std::size_t count);

}  // namespace agentworks::testing
