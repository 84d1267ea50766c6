// The bridge through the CLI, with real processes in a temp HOME: `up` starts server + bridge and `down` stops
// both; `daemon start|stop|status|logs` (R-B1: two starts leave one bridge; not running = exit 6);
// `status --agents` lists attachments; desktop notifications name the agent and never a body (R-B15).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <csignal>
#include <fstream>

#include "testing/bridge_client.hpp"
#include "testing/bridge_process.hpp"
#include "testing/temp_home.hpp"
#include "testing/wait.hpp"
#include "testing/binaries.hpp"
#include "support/bridge_fixture.hpp"

namespace agentworks::testing {
namespace {
// Never leave a daemon behind, whatever fails: SIGKILLs the pids it was given.
struct KillOnExit {
  std::vector<pid_t> pids;
  ~KillOnExit() {
    for (const pid_t p : pids) {
      if (p > 0) ::kill(p, SIGKILL);
    }
  }
};

pid_t bridge_pid(const TempHome& home) {
  const auto ping = bridge_call(home, {{"op", "ping"}});
  return ping ? ping->value("pid", 0) : 0;
}

// R-B1: `up` starts the server and then the bridge; a second `up` finds both; `down` stops the bridge first,
// then the server.
TEST(BridgeCli, UpStartsServerAndBridgeDownStopsBoth_RB1) {
  TempHome home;
  Cli cli(merge_env(home.env(), {{"AGENTWORKS_SERVER_BIN", server_binary()}}));
  KillOnExit cleanup;
  const CliResult up = cli.json({"up", "--port", "0"}, std::nullopt, std::chrono::seconds(60));
  ASSERT_EQ(up.exit_code, 0) << up.describe();
  const json u = up.json();
  const pid_t server = u.at("pid").get<pid_t>();
  const pid_t bridge = u.at("bridge").at("pid").get<pid_t>();
  cleanup.pids = {server, bridge};
  EXPECT_EQ(u["bridge"]["already_running"], false);
  EXPECT_GT(bridge, 0);
  EXPECT_EQ(bridge_pid(home), bridge);

  const CliResult status = cli.json({"status"});
  ASSERT_EQ(status.exit_code, 0) << status.describe();
  EXPECT_EQ(status.json().at("bridge").at("running"), true);
  EXPECT_EQ(status.json().at("bridge").at("pid"), bridge);

  const CliResult again = cli.json({"up", "--port", "0"}, std::nullopt, std::chrono::seconds(60));
  ASSERT_EQ(again.exit_code, 0) << again.describe();
  EXPECT_EQ(again.json()["bridge"]["already_running"], true);
  EXPECT_EQ(again.json()["bridge"]["pid"], bridge);

  const CliResult down = cli.json({"down"}, std::nullopt, std::chrono::seconds(60));
  ASSERT_EQ(down.exit_code, 0) << down.describe();
  EXPECT_EQ(down.json().at("stopped"), true);
  EXPECT_EQ(down.json().at("bridge").at("stopped"), true);
  EXPECT_EQ(down.json().at("bridge").at("pid"), bridge);
  EXPECT_TRUE(wait_until([&] { return !process_alive(bridge) && !process_alive(server); }));
  EXPECT_FALSE(std::filesystem::exists(bridge_socket(home)));
  EXPECT_EQ(bridge_pid(home), 0);

  const CliResult plain = cli.run({"status"}, std::nullopt, std::chrono::seconds(20));
  EXPECT_EQ(plain.exit_code, 6) << plain.describe();  // the saved login points at the stopped server
}

// R-B1: `daemon start` twice leaves one bridge; `daemon status` reports it (exit 6 when it does not run);
// `daemon logs` shows its log; `daemon stop` stops it and waits until the socket is gone.
TEST(BridgeCli, DaemonStartStatusLogsStop_RB1) {
  TempHome home;
  Cli cli(home.env());
  KillOnExit cleanup;

  const CliResult before = cli.json({"daemon", "status"});
  EXPECT_EQ(before.exit_code, 6) << before.describe();
  EXPECT_EQ(before.error_code(), "unreachable");
  const CliResult before_human = cli.run({"daemon", "status"});
  EXPECT_EQ(before_human.exit_code, 6);
  EXPECT_NE(before_human.err.find("agentworks daemon start"), std::string::npos) << before_human.describe();

  const CliResult first = cli.json({"daemon", "start"});
  ASSERT_EQ(first.exit_code, 0) << first.describe();
  const pid_t pid = first.json().at("pid").get<pid_t>();
  cleanup.pids = {pid};
  EXPECT_EQ(first.json().at("started"), true);
  EXPECT_EQ(first.json().at("already_running"), false);
  EXPECT_EQ(first.json().at("socket"), bridge_socket(home).string());

  const CliResult second = cli.json({"daemon", "start"});
  ASSERT_EQ(second.exit_code, 0) << second.describe();
  EXPECT_EQ(second.json().at("started"), false);
  EXPECT_EQ(second.json().at("already_running"), true);
  EXPECT_EQ(second.json().at("pid"), pid);
  EXPECT_EQ(bridge_pid(home), pid);

  const CliResult status = cli.json({"daemon", "status"});
  ASSERT_EQ(status.exit_code, 0) << status.describe();
  const json s = status.json();
  EXPECT_EQ(s.at("running"), true);
  EXPECT_EQ(s.at("pid"), pid);
  EXPECT_EQ(s.at("attachments"), 0);
  EXPECT_EQ(s.at("log"), (home.state_home() / "agentworks" / "bridge.log").string());

  const CliResult logs = cli.json({"daemon", "logs", "--lines", "5"});
  ASSERT_EQ(logs.exit_code, 0) << logs.describe();
  EXPECT_EQ(logs.json().at("exists"), true);
  const auto lines = logs.json().at("lines");
  EXPECT_GE(lines.size(), 1u);
  EXPECT_LE(lines.size(), 5u);
  EXPECT_NE(lines.dump().find("listening on"), std::string::npos) << lines.dump();
  EXPECT_EQ(cli.json({"daemon", "logs", "--lines", "0"}).exit_code, 2);

  const CliResult stop = cli.json({"daemon", "stop"});
  ASSERT_EQ(stop.exit_code, 0) << stop.describe();
  EXPECT_EQ(stop.json().at("stopped"), true);
  EXPECT_EQ(stop.json().at("pid"), pid);
  EXPECT_FALSE(process_alive(pid));  // stop waits until the bridge is gone
  EXPECT_FALSE(std::filesystem::exists(bridge_socket(home)));

  EXPECT_EQ(cli.json({"daemon", "status"}).exit_code, 6);
  EXPECT_EQ(cli.json({"status", "--agents"}).exit_code, 6);
  const CliResult stop_again = cli.json({"daemon", "stop"});
  ASSERT_EQ(stop_again.exit_code, 0) << stop_again.describe();
  EXPECT_EQ(stop_again.json().at("stopped"), false);
}

class BridgeCliAgents : public BridgeTest {};

// `status --agents --json` lists each attachment with the contract's fields, with live counts.
TEST_F(BridgeCliAgents, StatusAgentsListsAttachments) {
  start_server();
  register_agent(owner(), "worker");
  bridge_ = std::make_unique<BridgeProcess>(home_);
  bridge_->start();
  const json att = attach("sess-agents", "reviewer");
  ASSERT_TRUE(wait_until([&] { return stream_connected("sess-agents"); }));
  send_as(owner(), "worker", "agent:reviewer", "waiting message");

  json row;
  ASSERT_TRUE(wait_until([&] {
    const CliResult r = owner().json({"status", "--agents"});
    if (r.exit_code != 0 || r.json()["attachments"].size() != 1) return false;
    row = r.json()["attachments"][0];
    return row.value("pending", 0) == 1;
  })) << row.dump();
  EXPECT_EQ(row.at("agent_name"), "reviewer");
  EXPECT_EQ(row.at("provider"), "claude");
  EXPECT_EQ(row.at("session_id"), "sess-agents");
  EXPECT_EQ(row.at("attachment_id"), att.at("attachment_id"));
  EXPECT_EQ(row.at("state"), "attached");
  EXPECT_EQ(row.at("stream"), "connected");
  EXPECT_EQ(row.at("offered_not_admitted"), 0);

  // Taken: offered, not yet admitted.
  const auto taken = bridge_call(home_, {{"op", "take"}, {"provider", "claude"}, {"session_id", "sess-agents"}});
  ASSERT_TRUE(taken);
  ASSERT_EQ((*taken)["messages"].size(), 1u) << taken->dump();
  const CliResult after = owner().json({"status", "--agents"});
  ASSERT_EQ(after.exit_code, 0) << after.describe();
  EXPECT_EQ(after.json()["attachments"][0]["pending"], 0);
  EXPECT_EQ(after.json()["attachments"][0]["offered_not_admitted"], 1);

  const CliResult human = owner().run({"status", "--agents"});
  ASSERT_EQ(human.exit_code, 0) << human.describe();
  EXPECT_NE(human.out.find("reviewer"), std::string::npos) << human.out;
}

// R-B15, invariant 8: messages left waiting for an attached chat raise one desktop notification per waiting
// episode; it names the agent and never carries the message body.
TEST_F(BridgeCliAgents, NotificationNamesAgentNeverBody_RB15) {
  start_server();
  register_agent(owner(), "worker");
  const auto record = home_.path("notify-args.txt");
  const auto script = home_.path("notify.sh");
  {
    std::ofstream out(script);
    out << "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done >> '" << record.string() << "'\n"
        << "echo --- >> '" << record.string() << "'\n";
  }
  ::chmod(script.c_str(), 0755);
  bridge_ = std::make_unique<BridgeProcess>(
      home_, EnvOverrides{{"AGENTWORKS_NOTIFY_AFTER_MS", "300"}, {"AGENTWORKS_NOTIFY_COMMAND", script.string()}});
  bridge_->start();
  attach("sess-n1", "reviewer");
  attach("sess-n2", "auditor");
  ASSERT_TRUE(wait_until([&] { return stream_connected("sess-n1") && stream_connected("sess-n2"); }));

  const std::string body = "SECRET-BODY-7f3a do not leak";
  send_as(owner(), "worker", "agent:reviewer", body);
  const auto notifications = [&] {
    const std::string text = read_file(record);
    std::size_t n = 0;
    for (auto pos = text.find("---\n"); pos != std::string::npos; pos = text.find("---\n", pos + 1)) ++n;
    return n;
  };
  ASSERT_TRUE(wait_until([&] { return notifications() == 1; }, std::chrono::seconds(20))) << bridge_->log();
  std::string text = read_file(record);
  EXPECT_NE(text.find("reviewer"), std::string::npos) << text;
  EXPECT_EQ(text.find("SECRET-BODY"), std::string::npos) << text;

  // The reviewer's messages keep waiting (same episode) while a second agent's episode starts and notifies:
  // the reviewer is not notified again.
  send_as(owner(), "worker", "agent:reviewer", body + " again");
  send_as(owner(), "worker", "agent:auditor", body + " for the auditor");
  ASSERT_TRUE(wait_until([&] { return notifications() >= 2; }, std::chrono::seconds(20))) << bridge_->log();
  text = read_file(record);
  EXPECT_EQ(notifications(), 2u) << text;
  EXPECT_NE(text.find("auditor"), std::string::npos) << text;
  EXPECT_EQ(text.find("SECRET-BODY"), std::string::npos) << text;
  EXPECT_EQ(bridge_->log().find("SECRET-BODY"), std::string::npos);
}

}  // namespace
}  // namespace agentworks::testing
