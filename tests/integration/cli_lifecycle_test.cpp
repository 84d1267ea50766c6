// The CLI against no server (exit 6) and the embedded server lifecycle: up / status / down in a temp HOME.
#include <gtest/gtest.h>

#include <signal.h>

#include "testing/binaries.hpp"
#include "testing/net_probe.hpp"
#include "testing/wait.hpp"
#include "support/messaging_fixture.hpp"

namespace agentworks::testing {
namespace {

class CliLifecycle : public MessagingTest {};

// Exit 6: the server cannot be reached (a crashed server, a closed port); the error object says unreachable.
TEST_F(CliLifecycle, UnreachableServerExits6) {
  start_server();
  register_agent(owner(), "reviewer");
  server_->kill();
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"messages", "list"}, std::vector<std::string>{"status"},
        std::vector<std::string>{"messages", "send", "--agent", "reviewer", "--target", "agent:reviewer", "--message", "x"},
        std::vector<std::string>{"messages", "read", "--agent", "reviewer", "--after", "0", "--wait", "25"}}) {
    const CliResult r = owner().json(args, std::nullopt, std::chrono::seconds(20));
    EXPECT_FALSE(r.timed_out) << r.describe();
    EXPECT_EQ(r.exit_code, 6) << r.describe();
    EXPECT_EQ(r.error_code(), "unreachable") << r.describe();
  }
  const int port = closed_loopback_port();
  const Cli fresh(home_.env(), home_.path("fresh.json"));
  const CliResult login = fresh.json({"login", "--server", "http://127.0.0.1:" + std::to_string(port), "--token-stdin"},
                                     std::string("token\n"), std::chrono::seconds(20));
  EXPECT_EQ(login.exit_code, 6) << login.describe();
  EXPECT_EQ(login.error_code(), "unreachable") << login.describe();
}

// Exit 3: an unknown token is refused at login and nothing is saved; a CLI that never logged in says so.
TEST_F(CliLifecycle, UnknownTokenAndNoLoginExit3) {
  start_server();
  const Cli fresh(home_.env(), home_.path("fresh.json"));
  const CliResult login = fresh.json({"login", "--server", server_->url(), "--token-stdin"}, std::string("wrong-token\n"));
  EXPECT_EQ(login.exit_code, 3) << login.describe();
  EXPECT_EQ(login.error_code(), "unauthenticated") << login.describe();
  EXPECT_EQ(login.out.find("wrong-token"), std::string::npos) << "the token must never be printed";
  const CliResult list = fresh.json({"messages", "list"});
  EXPECT_EQ(list.exit_code, 3) << list.describe();
  EXPECT_EQ(list.error_code(), "unauthenticated") << list.describe();
  // A successful login stores the token privately (0600).
  const CliResult ok = fresh.login(server_->url(), owner_token());
  ASSERT_EQ(ok.exit_code, 0) << ok.describe();
  EXPECT_EQ(ok.out.find(owner_token()), std::string::npos) << "the token must never be printed";
  const auto perms = std::filesystem::status(home_.path("fresh.json")).permissions();
  EXPECT_EQ(perms & (std::filesystem::perms::group_all | std::filesystem::perms::others_all), std::filesystem::perms::none);
}

// `agentworks up --port 0` starts the embedded server in the temp HOME and logs in; `status` reports it; a second
// `up` finds it; `down` stops it; afterwards the saved login points at a stopped server (exit 6).
TEST_F(CliLifecycle, UpStatusDown) {
  Cli cli(merge_env(home_.env(), {{"AGENTWORKS_SERVER_BIN", server_binary()}}));
  pid_t started_pid = 0;
  struct Cleanup {  // never leave a daemon behind, whatever fails
    pid_t* pid;
    ~Cleanup() {
      if (*pid > 0) ::kill(*pid, SIGKILL);
    }
  } cleanup{&started_pid};

  const CliResult up = cli.json({"up", "--port", "0"}, std::nullopt, std::chrono::seconds(40));
  ASSERT_EQ(up.exit_code, 0) << up.describe();
  const json up_json = up.json();
  started_pid = up_json.at("pid").get<pid_t>();
  EXPECT_GT(started_pid, 0);
  EXPECT_EQ(up_json.at("already_running"), false);
  const std::string url = up_json.at("server_url").get<std::string>();
  EXPECT_EQ(url.rfind("http://127.0.0.1:", 0), 0u) << url;
  EXPECT_NE(url, "http://127.0.0.1:0");
  EXPECT_TRUE(std::filesystem::exists(home_.data_home() / "agentworks" / "server" / "owner.token"))
      << "the embedded server's data is not under XDG_DATA_HOME";

  const CliResult status = cli.json({"status"});
  ASSERT_EQ(status.exit_code, 0) << status.describe();
  EXPECT_EQ(status.json().at("server_url"), url);
  EXPECT_EQ(status.json().at("reachable"), true);
  EXPECT_EQ(status.json().at("embedded_pid"), started_pid);

  // The login works for messaging.
  cli_ok(cli, {"messages", "register", "--agent", "reviewer"});
  cli_ok(cli, {"messages", "register", "--agent", "worker"});
  cli_ok(cli, {"messages", "send", "--agent", "worker", "--target", "agent:reviewer", "--message", "embedded"});
  EXPECT_EQ(texts_of(read_mailbox(cli, "reviewer")), std::vector<std::string>{"embedded"});

  const CliResult again = cli.json({"up", "--port", "0"}, std::nullopt, std::chrono::seconds(40));
  ASSERT_EQ(again.exit_code, 0) << again.describe();
  EXPECT_EQ(again.json().at("already_running"), true);
  EXPECT_EQ(again.json().at("pid"), started_pid);

  const CliResult down = cli.json({"down"}, std::nullopt, std::chrono::seconds(30));
  ASSERT_EQ(down.exit_code, 0) << down.describe();
  EXPECT_EQ(down.json().at("stopped"), true);
  EXPECT_TRUE(wait_until([&] { return !process_alive(started_pid); })) << "the server process is still alive";
  started_pid = 0;

  const CliResult after = cli.json({"status"}, std::nullopt, std::chrono::seconds(20));
  EXPECT_EQ(after.exit_code, 6) << after.describe();
  const CliResult down_again = cli.json({"down"});
  EXPECT_EQ(down_again.exit_code, 0) << down_again.describe();
  EXPECT_EQ(down_again.json().at("stopped"), false);

  // `up` again, without --port, brings the same data back on the port it last used: the address attached chats
  // know stays right.
  const CliResult up2 = cli.json({"up"}, std::nullopt, std::chrono::seconds(40));
  ASSERT_EQ(up2.exit_code, 0) << up2.describe();
  started_pid = up2.json().at("pid").get<pid_t>();
  EXPECT_EQ(up2.json().at("server_url"), url) << up2.describe();
  EXPECT_EQ(texts_of(read_mailbox(cli, "reviewer")), std::vector<std::string>{"embedded"});

  // A server that died is found dead by doctor, whose fix is the `up` that restarts it at the same address.
  ::kill(started_pid, SIGKILL);
  ASSERT_TRUE(wait_until([&] { return !process_alive(started_pid); }));
  started_pid = 0;
  const CliResult dead = cli.json({"doctor"}, std::nullopt, std::chrono::seconds(30));
  const json dead_report = dead.json();  // named: the loop must not iterate a dead temporary
  std::string fix;
  for (const auto& c : dead_report.at("checks"))
    if (c.at("name") == "server") fix = c.at("fix").get<std::string>();
  EXPECT_EQ(fix, "agentworks up (starts the embedded server again at " + url + ")") << dead.describe();
  const CliResult up3 = cli.json({"up"}, std::nullopt, std::chrono::seconds(40));
  ASSERT_EQ(up3.exit_code, 0) << up3.describe();
  started_pid = up3.json().at("pid").get<pid_t>();
  EXPECT_EQ(up3.json().at("server_url"), url) << up3.describe();
  const CliResult down2 = cli.json({"down"}, std::nullopt, std::chrono::seconds(30));
  EXPECT_EQ(down2.exit_code, 0) << down2.describe();
  if (down2.exit_code == 0) started_pid = 0;
}

}  // namespace
}  // namespace agentworks::testing
