#include "support/messaging_fixture.hpp"

#include <stdexcept>

#include "testing/json_util.hpp"

namespace agentworks::testing {

void MessagingTest::TearDown() {
  if (HasFailure() && server_) {
    std::cerr << "=== server log ===\n" << server_->log().substr(0, 20000) << "\n";
  }
}

EnvOverrides MessagingTest::server_env() const {
  EnvOverrides env = home_.env();
  for (const auto& [name, value] : server_extra_env_) env[name] = value;
  return env;
}

void MessagingTest::restart_server_same_port() {
  ServerOptions o;
  o.data_dir = server_->data_dir();
  o.listen = "127.0.0.1:" + std::to_string(server_->port());
  o.extra_args = server_extra_args_;
  o.env = server_env();
  server_ = std::make_unique<ServerProcess>(o);
}

void MessagingTest::start_server(const std::vector<std::string>& extra_args, const EnvOverrides& extra_env) {
  server_extra_env_ = extra_env;
  server_extra_args_ = extra_args;
  ServerOptions options;
  options.data_dir = home_.path("server-data");
  options.extra_args = extra_args;
  options.env = server_env();
  server_ = std::make_unique<ServerProcess>(options);
  owner_token_ = server_->owner_token();
  owner_cli_ = std::make_unique<Cli>(home_.env());  // the default XDG config in the temp home
  const CliResult login = owner_cli_->login(server_->url(), owner_token_);
  if (login.exit_code != 0) throw std::runtime_error("owner login failed:\n" + login.describe());
  owner_http_ = std::make_unique<HttpClient>(server_->url(), owner_token_);
}

Identity MessagingTest::login_identity(const std::string& token, const std::string& tag) {
  Cli cli(home_.env(), home_.path(tag + ".json"));
  const CliResult login = cli.login(server_->url(), token);
  if (login.exit_code != 0) throw std::runtime_error("login " + tag + " failed:\n" + login.describe());
  HttpClient http(server_->url(), token);
  return Identity{token, whoami_connection_id(http), cli, http};
}

Identity MessagingTest::add_account(const std::string& name) {
  return login_identity(server_->add_account(name), "account-" + name);
}

Identity MessagingTest::create_child(const std::string& parent_token, const std::string& agent_name) {
  const HttpClient parent(server_->url(), parent_token);
  const json body = {{"agent_name", agent_name}, {"label", "integration test"}};
  const json child = http_json(parent, "POST", "/v1/connections", body.dump(), 0);  // status: any 2xx
  if (child.value("kind", "") != "child") throw std::runtime_error("child connection not of kind child: " + child.dump());
  static int counter = 0;
  return login_identity(child.at("token").get<std::string>(), "child-" + agent_name + "-" + std::to_string(++counter));
}

Identity MessagingTest::create_login(const std::string& login_token, const std::string& tag) {
  const HttpClient parent(server_->url(), login_token);
  const json created = http_json(parent, "POST", "/v1/connections", json{{"kind", "login"}, {"label", tag}}.dump(), 0);
  if (created.value("kind", "") != "login") throw std::runtime_error("not a login connection: " + created.dump());
  return login_identity(created.at("token").get<std::string>(), "login-" + tag);
}

json MessagingTest::cli_ok(const Cli& cli, const std::vector<std::string>& args) {
  const CliResult r = cli.json(args);
  if (r.exit_code != 0) throw std::runtime_error("CLI call failed:\n" + r.describe());
  return r.json();
}

json MessagingTest::register_agent(const Cli& cli, const std::string& name, const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"messages", "register", "--agent", name};
  args.insert(args.end(), extra.begin(), extra.end());
  return cli_ok(cli, args);
}

json MessagingTest::send_as(const Cli& cli, const std::string& agent, const std::string& target,
                            const std::string& text, const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"messages", "send", "--agent", agent, "--target", target, "--message", text};
  args.insert(args.end(), extra.begin(), extra.end());
  return cli_ok(cli, args);
}

json MessagingTest::reply_in(const Cli& cli, const std::string& agent, const std::string& inbox, const std::string& text) {
  return cli_ok(cli, {"messages", "send", "--agent", agent, "--inbox", inbox, "--message", text});
}

json MessagingTest::read_mailbox(const Cli& cli, const std::string& agent, const std::string& after) {
  return cli_ok(cli, {"messages", "read", "--agent", agent, "--after", after});
}

json MessagingTest::read_inbox(const Cli& cli, const std::string& inbox, const std::string& after) {
  return cli_ok(cli, {"messages", "read", "--inbox", inbox, "--after", after});
}

json MessagingTest::http_json(const HttpClient& http, const std::string& method, const std::string& path,
                              const std::optional<std::string>& body, int expected_status) {
  const HttpResponse r = http.request(method, path, body);
  const bool ok = expected_status == 0 ? (r.status >= 200 && r.status < 300) : r.status == expected_status;
  if (!ok) {
    throw std::runtime_error(method + " " + path + " expected HTTP " + std::to_string(expected_status) + ", got " +
                             describe(r));
  }
  return parse_json(r.body);
}

json MessagingTest::attach_over_http(const std::string& agent, const std::string& session,
                                    const std::string& purpose) {
  return http_json(owner_http(), "POST", "/v1/attachments",
                   json{{"agent_name", agent}, {"purpose", purpose}, {"provider", "claude"},
                        {"native_session_id", session}}
                       .dump(),
                   201);
}

std::string MessagingTest::whoami_connection_id(const HttpClient& http) {
  return http_json(http, "GET", "/v1/whoami", std::nullopt, 200).at("connection_id").get<std::string>();
}

std::vector<std::string> texts_of(const json& page) {
  std::vector<std::string> out;
  for (const auto& m : page.at("messages")) out.push_back(m.at("message").get<std::string>());
  return out;
}

std::string describe(const HttpResponse& response) {
  std::string s = "HTTP " + std::to_string(response.status);
  if (!response.error.empty()) s += " (transport: " + response.error + ")";
  return s + " body: " + response.body.substr(0, 2000);
}

std::string repeat(const std::string& unit, std::size_t count) {
  std::string out;
  out.reserve(unit.size() * count);
  for (std::size_t i = 0; i < count; ++i) out += unit;
  return out;
}

}  // namespace agentworks::testing
